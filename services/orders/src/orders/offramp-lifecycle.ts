import { Commands, type DepositObserved, normalizeAddress, type PayoutResult } from "@ramp/contracts";
import { outboxEntry, type TraceContext } from "@ramp/runtime";
import { priceLanded, quoteOfframp } from "../quotes/quotes.ts";
import { openBankAccountOrder } from "./bank-account-orders.ts";
import type { LifecycleDeps } from "./lifecycle.ts";
import type { OrderDoc } from "./order-doc.ts";

/** Offramp: the token deposit moves INIT → PROCESSING and orders the payout; the rail's answer ends it. */
export function createOfframpLifecycle(deps: LifecycleDeps) {
  const { store, funds, log } = deps;

  const applyDeposit = async (order: OrderDoc, ev: DepositObserved, fundsId: string, trace: TraceContext) => {
    const orderId = order._id.toHexString();
    if (ev.chain !== order.chain || normalizeAddress(ev.chain, ev.mint) !== order.mintKey) {
      await funds.record(fundsId, ev.ref, orderId, "other-token", ev);
      log.warn({ orderId, mint: ev.mint }, "deposit of another token recorded; order unchanged");
      return;
    }
    await funds.record(fundsId, ev.ref, orderId, order.status === "INIT" ? "applied" : "ignored", ev);
    if (order.status !== "INIT") return;
    const landed = { signature: ev.txId, sender: ev.sender };
    // Priced on what landed, whatever size was quoted.
    const priced = priceLanded(() => quoteOfframp({ ...order, fiatAmount: undefined, amount: ev.amount }));
    if (!priced) {
      const errorReason = "deposit worth less than the fee";
      await store.transition(
        order._id,
        "INIT",
        "ERROR",
        { ...landed, amount: ev.amount, errorReason },
        trace,
      );
      return;
    }
    await store.transition(order._id, "INIT", "PROCESSING", { ...landed, ...priced }, trace, (o) => [
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
    ]);
  };

  return {
    async onChainDeposit(ev: DepositObserved, trace: TraceContext) {
      const fundsId = `chain:${ev.chain}:${ev.txId}:${ev.index}`;
      if (ev.purpose === "bank-account") {
        // A registered bank account's address: each deposit becomes its own offramp of the registrant.
        const order = await openBankAccountOrder(deps, ev, fundsId, trace);
        if (!order) await funds.record(fundsId, ev.ref, null, "unmatched", ev);
        else await applyDeposit(order, ev, fundsId, trace);
        return;
      }
      const order = await store.get(ev.ref);
      if (order?.transactionType !== "OFF_RAMP") {
        await funds.record(fundsId, ev.ref, null, "unmatched", ev);
        return;
      }
      await applyDeposit(order, ev, fundsId, trace);
    },

    async onPayoutResult(ev: PayoutResult, trace: TraceContext) {
      const order = await store.get(ev.orderId);
      if (!order) return;
      if (ev.status === "COMPLETED") {
        await store.transition(order._id, "PROCESSING", "COMPLETED", {}, trace);
      } else {
        await store.transition(
          order._id,
          "PROCESSING",
          "ERROR",
          { errorReason: ev.reason ?? "payout rejected" },
          trace,
        );
      }
    },
  };
}
