import { Commands, type TransferResult } from "@ramp/contracts";
import { outboxEntry, type TraceContext } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { FundsOutcome, LandedFunds } from "../orders/received-funds.ts";
import { priceLanded, quoteOnramp } from "../pricing/quotes.ts";
import type { LifecycleDeps } from "./deps.ts";
import { finishProcessing, moveOnFunds } from "./order-moves.ts";

/** Onramp: the payer's transfer moves INIT → PROCESSING and orders the delivery; its result ends the order. */
export function createOnrampLifecycle(deps: LifecycleDeps) {
  const { store } = deps;
  return {
    /** The payer's bank transfer to the order's virtual account. */
    async applyFunds(order: OrderDoc, landed: LandedFunds, trace: TraceContext): Promise<FundsOutcome> {
      if (landed.chain) return "wrong-token";
      const orderId = order._id.toHexString();
      // An underpayment is re-priced on what arrived; an overpayment still buys the quoted amount.
      const priced = new Decimal(landed.amount).lt(order.fiatAmount)
        ? priceLanded(() => quoteOnramp({ ...order, amount: undefined, fiatAmount: landed.amount }))
        : { amount: order.amount, fiatAmount: order.fiatAmount, usdcAmount: order.usdcAmount };
      return moveOnFunds(store, order, landed, trace, {
        priced,
        seen: { expiresAt: null },
        short: { fiatAmount: landed.amount },
        next: (o) => [
          outboxEntry(
            Commands.chainTransfer,
            { requestId: orderId, chain: o.chain, mint: o.mintKey, recipient: o.recipient, amount: o.amount },
            `transfer:${orderId}`,
            trace,
          ),
        ],
      });
    },

    async onTransferResult(ev: TransferResult, trace: TraceContext) {
      const answer = {
        ok: ev.status === "CONFIRMED",
        cause: `transfer:${ev.requestId}`,
        set: { signature: ev.signature },
        errorReason: ev.reason ?? "delivery failed",
      };
      await finishProcessing(store, ev.requestId, answer, trace);
    },
  };
}
