import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import type { Register } from "../register.ts";

/** A locked rate and amounts, turned into an order by its `quoteId`. */
export function quoteRoutes(register: Register, nc: NatsConnection) {
  register(Routes.quoteCreate, async (c, { body }) =>
    callRpc(nc, Rpc.quoteCreate, { businessId: c.var.caller.businessId, body }, c.var.trace, 30_000),
  );
}
