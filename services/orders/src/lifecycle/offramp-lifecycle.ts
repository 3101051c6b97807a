import { Commands, normalizeAddress, type PayoutResult } from "@ramp/contracts";
import { outboxEntry, type TraceContext } from "@ramp/runtime";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { FundsOutcome, LandedFunds } from "../orders/received-funds.ts";
import { priceLanded, quoteOfframp } from "../pricing/quotes.ts";
import type { LifecycleDeps } from "./deps.ts";
import { finishProcessing, moveOnFunds } from "./order-moves.ts";

/** Offramp: the token deposit moves INIT → PROCESSING and orders the payout; the rail's answer ends it. */
export function createOfframpLifecycle(deps: LifecycleDeps) {
  const { store, log } = deps;

  return {
    /** A token deposit to the order's address; priced on what landed, whatever size was quoted. */
    async applyFunds(order: OrderDoc, landed: LandedFunds, trace: TraceContext): Promise<FundsOutcome> {
      const orderId = order._id.toHexString();
      const chain = landed.chain;
      if (
        !chain ||
        chain.chain !== order.chain ||
        normalizeAddress(chain.chain, chain.mint) !== order.mintKey
      ) {
        log.warn({ orderId, mint: chain?.mint }, "deposit of another token recorded; order unchanged");
        return "wrong-token";
      }
      return moveOnFunds(deps.store, order, landed, trace, {
        priced: priceLanded(() => quoteOfframp({ ...order, fiatAmount: undefined, amount: landed.amount })),
        seen: { signature: chain.txId, sender: chain.sender },
        short: { amount: landed.amount },
        next: (o) => [
          outboxEntry(
            Commands.bankingPayout,
            {
              orderId,
              bankCode: o.bankCode,
              accountNumber: o.accountNumber,
              accountName: o.accountName,
              currency: o.currency,
              fiatAmount: o.fiatAmount,
              narration: o.description ?? `Offramp ${orderId}`,
            },
            `payout:${orderId}`,
            trace,
          ),
        ],
      });
    },

    async onPayoutResult(ev: PayoutResult, trace: TraceContext) {
      const answer = {
        ok: ev.status === "COMPLETED",
        cause: `payout:${ev.reference}`,
        set: { payoutReference: ev.reference },
        errorReason: ev.reason ?? "payout rejected",
      };
      await finishProcessing(store, ev.orderId, answer, trace);
    },
  };
}
