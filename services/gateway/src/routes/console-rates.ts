import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import type { Register } from "../register.ts";
import { rateOps } from "./admin.ts";

/** Market rates for operators: pricing owns them; these go through the admin API's subjects. */
export function consoleRateRoutes(register: Register, nc: NatsConnection) {
  const rates = rateOps(nc);
  register(Routes.consoleRateHistory, (c, { query }) =>
    callRpc(nc, Rpc.marketRateHistory, query, c.var.trace),
  );
  register(Routes.consoleRateGet, (c, { params }) => callRpc(nc, Rpc.marketRateGet, params, c.var.trace));
  register(Routes.consoleRateSet, rates.set);
  register(Routes.consoleRateDelete, rates.remove);
}
