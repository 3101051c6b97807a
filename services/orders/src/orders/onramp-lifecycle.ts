import { Commands, Rpc, type TransferResult } from "@ramp/contracts";
import { callRpc, outboxEntry, type TraceContext } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import { priceLanded, quoteOnramp } from "../quotes/quotes.ts";
import type { LifecycleDeps } from "./lifecycle.ts";
import type { OrderDoc } from "./order-doc.ts";
import type { FundsOutcome, LandedFunds } from "./received-funds.ts";

/** Onramp: the payer's transfer moves INIT → PROCESSING and orders the delivery; its result ends the order. */
export function createOnrampLifecycle(deps: LifecycleDeps) {
  const { store, log } = deps;
  return {
    /** The payer's bank transfer to the order's virtual account. */
    async applyFunds(order: OrderDoc, landed: LandedFunds, trace: TraceContext): Promise<FundsOutcome> {
      if (landed.chain) return "wrong-token";
      const orderId = order._id.toHexString();
      // An underpayment is re-priced on what arrived; an overpayment still buys the quoted amount.
      const priced = new Decimal(landed.amount).lt(order.fiatAmount)
        ? priceLanded(() => quoteOnramp({ ...order, amount: undefined, fiatAmount: landed.amount }))
        : { amount: order.amount, fiatAmount: order.fiatAmount, usdcAmount: order.usdcAmount };
      if (!priced) {
        const errored = await store.transition({
          id: order._id,
          from: "INIT",
          to: "ERROR",
          cause: landed.id,
          set: { fiatAmount: landed.amount, errorReason: "deposit worth less than the fee", expiresAt: null },
          trace,
        });
        return errored ? "underfunded" : "surplus";
      }
      const moved = await store.transition({
        id: order._id,
        from: "INIT",
        to: "PROCESSING",
        cause: landed.id,
        set: { ...priced, expiresAt: null },
        trace,
        extra: (o) => [
          outboxEntry(
            Commands.chainTransfer,
            { requestId: orderId, chain: o.chain, mint: o.mintKey, recipient: o.recipient, amount: o.amount },
            `transfer:${orderId}`,
            trace,
          ),
        ],
      });
      if (!moved) return "surplus";
      await callRpc(deps.nc, Rpc.virtualAccountClose, { ref: orderId }, trace).catch((err) =>
        log.warn({ err, orderId }, "virtual account close failed"),
      );
      return "applied";
    },

    async onTransferResult(ev: TransferResult, trace: TraceContext) {
      const order = await store.get(ev.requestId);
      if (!order) return;
      const cause = `transfer:${ev.requestId}`;
      if (ev.status === "CONFIRMED") {
        await store.transition({
          id: order._id,
          from: "PROCESSING",
          to: "COMPLETED",
          cause,
          set: { signature: ev.signature },
          trace,
        });
      } else {
        const errorReason = ev.reason ?? "delivery failed";
        await store.transition({
          id: order._id,
          from: "PROCESSING",
          to: "ERROR",
          cause,
          set: { signature: ev.signature, errorReason },
          trace,
        });
      }
    },
  };
}
