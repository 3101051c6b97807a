import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { callRpc, type Logger, newTraceContext } from "@ramp/runtime";
import type { Payments } from "../payments/payments.ts";
import type { OrdersStore } from "./orders-store.ts";

/**
 * Spec §3: an unpaid onramp order is deleted once its TTL passes, and its virtual account closed, so a
 * late transfer is kept by banking as unmatched instead of moving a dead order. Awaiting payments past
 * their TTL become EXPIRED.
 */
export function startExpirySweeper(deps: {
  nc: NatsConnection;
  store: OrdersStore;
  payments: Payments;
  log: Logger;
  intervalMs: number;
}) {
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    const expired = await deps.payments.expireDue();
    if (expired) deps.log.info({ expired }, "awaiting payments expired");
    const due = await deps.store.collection
      .find(
        { transactionType: "ON_RAMP", status: "INIT", expiresAt: { $lte: new Date() } },
        { projection: { _id: 1 } },
      )
      .limit(200)
      .toArray();
    for (const { _id } of due) {
      const trace = newTraceContext();
      const ref = _id.toHexString();
      // A payment racing the expiry either claimed INIT first (the order proceeds) or finds it gone.
      if (!(await deps.store.claimExit(_id, "INIT", "DELETED"))) continue;
      await callRpc(deps.nc, Rpc.virtualAccountClose, { ref }, trace);
      const { deletedCount } = await deps.store.collection.deleteOne({ _id, status: "INIT" });
      if (deletedCount)
        deps.log.info(
          { orderId: ref, requestId: trace.requestId },
          "unpaid onramp order expired and deleted",
        );
    }
  };
  const timer = setInterval(() => {
    running = sweep().catch((err) => deps.log.warn({ err }, "expiry sweep failed"));
  }, deps.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
