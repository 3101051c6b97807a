import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { callRpc, inSpan, type Logger, SpanKind, type Stoppable, startPeriodic } from "@ramp/runtime";
import type { OrdersStore } from "../orders/orders-store.ts";
import type { Payments } from "../payments/payments.ts";

/**
 * An unpaid onramp order is deleted once its TTL passes, and its virtual account closed, so a late
 * transfer is kept by banking as unmatched instead of moving a dead order. Awaiting payments past
 * their TTL become EXPIRED. Safe in every replica at once: each expiry claims the state's exit, so an
 * order or payment is expired once, and never after a deposit claimed it.
 */
export function startExpirySweeper(deps: {
  nc: NatsConnection;
  store: OrdersStore;
  payments: Payments;
  log: Logger;
  intervalMs: number;
}): Stoppable {
  const sweep = async () => {
    const now = new Date();
    const expired = await deps.payments.expireDue(now);
    if (expired) deps.log.info({ expired }, "awaiting payments expired");
    for (const id of await deps.store.dueForExpiry(now, 200)) {
      const ref = id.toHexString();
      // Each expiry starts a trace of its own: nothing handed it one.
      await inSpan("expire unpaid order", { kind: SpanKind.INTERNAL }, async (trace) => {
        if (!(await deps.store.claimExit(id, "INIT", "DELETED", "expiry"))) return;
        await callRpc(deps.nc, Rpc.virtualAccountClose, { ref }, trace);
        if (await deps.store.deleteUnpaid(id))
          deps.log.info(
            { orderId: ref, requestId: trace.requestId },
            "unpaid onramp order expired and deleted",
          );
      });
    }
  };
  return startPeriodic("expiry", deps.intervalMs, sweep, deps.log, { immediate: false });
}
