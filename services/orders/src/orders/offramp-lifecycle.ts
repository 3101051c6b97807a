import { Commands, normalizeAddress, type PayoutResult } from "@ramp/contracts";
import { outboxEntry, type TraceContext } from "@ramp/runtime";
import { priceLanded, quoteOfframp } from "../quotes/quotes.ts";
import type { LifecycleDeps } from "./lifecycle.ts";
import type { OrderDoc } from "./order-doc.ts";
import type { FundsOutcome, LandedFunds } from "./received-funds.ts";

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
      const seen = { signature: chain.txId, sender: chain.sender };
      const priced = priceLanded(() =>
        quoteOfframp({ ...order, fiatAmount: undefined, amount: landed.amount }),
      );
      if (!priced) {
        const errored = await store.transition({
          id: order._id,
          from: "INIT",
          to: "ERROR",
          cause: landed.id,
          set: { ...seen, amount: landed.amount, errorReason: "deposit worth less than the fee" },
          trace,
        });
        return errored ? "underfunded" : "surplus";
      }
      const moved = await store.transition({
        id: order._id,
        from: "INIT",
        to: "PROCESSING",
        cause: landed.id,
        set: { ...seen, ...priced },
        trace,
        extra: (o) => [
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
      return moved ? "applied" : "surplus";
    },

    async onPayoutResult(ev: PayoutResult, trace: TraceContext) {
      const order = await store.get(ev.orderId);
      if (!order) return;
      const cause = `payout:${ev.reference}`;
      if (ev.status === "COMPLETED") {
        await store.transition({ id: order._id, from: "PROCESSING", to: "COMPLETED", cause, trace });
      } else {
        const errorReason = ev.reason ?? "payout rejected";
        await store.transition({
          id: order._id,
          from: "PROCESSING",
          to: "ERROR",
          cause,
          set: { errorReason },
          trace,
        });
      }
    },
  };
}
