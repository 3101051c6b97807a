import type { NatsConnection } from "@nats-io/transport-node";
import { Routes, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { noteAudit } from "../audit/middleware.ts";
import type { Register } from "../register.ts";

/** The chain side of money operations: chain-watcher owns treasuries and cursors; these ask it. */
export function consoleChainOpsRoutes(register: Register, nc: NatsConnection) {
  register(Routes.consoleTreasury, (c) => callRpc(nc, Rpc.chainTreasury, {}, c.var.trace));
  register(Routes.consoleChainReindex, async (c, { params: { chain }, body }) => {
    const accepted = await callRpc(nc, Rpc.chainReindex, { chain, ...body }, c.var.trace);
    noteAudit(c, {
      target: `chain:${chain}`,
      after: { from: accepted.from, to: accepted.to },
      businessId: null,
    });
    return accepted;
  });
}
