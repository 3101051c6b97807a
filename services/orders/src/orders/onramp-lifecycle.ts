import { Commands, type FiatDepositReceived, Rpc, type TransferResult } from "@ramp/contracts";
import { callRpc, outboxEntry, type TraceContext } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import { priceLanded, quoteOnramp } from "../quotes/quotes.ts";
import type { LifecycleDeps } from "./lifecycle.ts";

/** Onramp: the payer's transfer moves INIT → PROCESSING and orders the delivery; its result ends the order. */
export function createOnrampLifecycle(deps: LifecycleDeps) {
  const { store, funds, log } = deps;
  return {
    async onFiatDeposit(ev: FiatDepositReceived, trace: TraceContext) {
      const fundsId = `fiat:${ev.reference}`;
      const order = await store.get(ev.ref);
      if (!order && (await deps.payments.onFunds(ev.ref, { amount: ev.fiatAmount }, trace))) {
        await funds.record(fundsId, ev.ref, null, "applied", ev);
        return;
      }
      if (order?.transactionType !== "ON_RAMP") {
        await funds.record(fundsId, ev.ref, null, "unmatched", ev);
        log.warn(
          { ref: ev.ref, reference: ev.reference },
          "fiat deposit for no open onramp order; kept for operators",
        );
        return;
      }
      await funds.record(fundsId, ev.ref, ev.ref, order.status === "INIT" ? "applied" : "ignored", ev);
      if (order.status !== "INIT") return;
      // An underpayment is re-priced on what arrived; an overpayment still buys the quoted amount.
      const priced = new Decimal(ev.fiatAmount).lt(order.fiatAmount)
        ? priceLanded(() => quoteOnramp({ ...order, amount: undefined, fiatAmount: ev.fiatAmount }))
        : { amount: order.amount, fiatAmount: order.fiatAmount, usdcAmount: order.usdcAmount };
      if (!priced) {
        const errorReason = "deposit worth less than the fee";
        await store.transition(
          order._id,
          "INIT",
          "ERROR",
          { fiatAmount: ev.fiatAmount, errorReason, expiresAt: null },
          trace,
        );
        return;
      }
      const moved = await store.transition(
        order._id,
        "INIT",
        "PROCESSING",
        { ...priced, expiresAt: null },
        trace,
        (o) => [
          outboxEntry(
            Commands.chainTransfer,
            {
              requestId: o._id.toHexString(),
              chain: o.chain,
              mint: o.mintKey,
              recipient: o.recipient,
              amount: o.amount,
            },
            `transfer:${o._id.toHexString()}`,
            trace,
          ),
        ],
      );
      if (moved) {
        await callRpc(deps.nc, Rpc.virtualAccountClose, { ref: ev.ref }, trace).catch((err) =>
          log.warn({ err, orderId: ev.ref }, "virtual account close failed"),
        );
      }
    },

    async onTransferResult(ev: TransferResult, trace: TraceContext) {
      const order = await store.get(ev.requestId);
      if (!order) return;
      if (ev.status === "CONFIRMED") {
        await store.transition(order._id, "PROCESSING", "COMPLETED", { signature: ev.signature }, trace);
      } else {
        const errorReason = ev.reason ?? "delivery failed";
        await store.transition(
          order._id,
          "PROCESSING",
          "ERROR",
          { signature: ev.signature, errorReason },
          trace,
        );
      }
    },
  };
}
