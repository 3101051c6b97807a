import {
  type DepositObserved,
  type FiatDepositReceived,
  type PayoutResult,
  Rpc,
  type TransferResult,
} from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import type { RaisedException } from "../money/exceptions-store.ts";
import { payoutFailed, refundableFunds } from "../money/raised-here.ts";
import { refundAttemptOf } from "../money/refunds.ts";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { FundsOutcome, LandedFunds } from "../orders/received-funds.ts";
import { openBankAccountOrder } from "./bank-account-orders.ts";
import type { LifecycleDeps } from "./deps.ts";
import { createOfframpLifecycle } from "./offramp-lifecycle.ts";
import { createOnrampLifecycle } from "./onramp-lifecycle.ts";

/**
 * Order reactions to the outside world. Each handler is idempotent: every state change is claimed by
 * its cause, so a redelivered message finishes its own change and changes nothing else, and every
 * inbound fund is recorded once with the outcome its own claim decided.
 */
export function createLifecycle(deps: LifecycleDeps) {
  const { store, payments, funds, log } = deps;
  const onramp = createOnrampLifecycle(deps);
  const offramp = createOfframpLifecycle(deps);

  /**
   * Raises an exception that a refund settles. A refund that settled before this raise (its cause
   * redelivered after a crash between the cause's record and its exception) cleared nothing; the refund
   * marks its fund before it clears, so checking after the raise leaves it open in no ordering of the two.
   */
  async function raiseRefundable(e: RaisedException, of: { fundId: string } | { orderId: string }) {
    await deps.exceptions.raise(e);
    const note = await deps.refunds.refundedNote(of);
    if (note !== null) await deps.exceptions.clear(e.key, note);
  }

  /** The one place that decides what a fund is for — an order, a payment or nothing — fiat and chain alike. */
  async function apply(landed: LandedFunds, order: OrderDoc | null, trace: TraceContext) {
    let outcome: FundsOutcome = "unmatched";
    let target: string | null = null;
    let businessId: string | null = order?.businessId ?? null;
    if (order) {
      target = order._id.toHexString();
      outcome =
        order.transactionType === "ON_RAMP"
          ? await onramp.applyFunds(order, landed, trace)
          : await offramp.applyFunds(order, landed, trace);
    } else {
      const payment = await payments.get(landed.ref);
      if (payment) {
        target = landed.ref;
        businessId = payment.businessId;
        outcome = await payments.applyFunds(payment, landed, trace);
      }
    }
    if (outcome !== "applied")
      log.warn(
        { ref: landed.ref, fundsId: landed.id, outcome },
        "inbound funds not applied; kept for operators",
      );
    await funds.record(landed.id, landed.ref, target, outcome, landed.detail);
    // After the record, keyed by the fund: a redelivery after a crash in between raises it then.
    if (outcome !== "applied")
      await raiseRefundable(refundableFunds(landed, outcome, target, businessId), { fundId: landed.id });
    // Only once the fund is on record: a crash here leaves the account open, and the redelivered
    // deposit finds its change already made and closes it then.
    if (outcome === "applied" && !landed.chain)
      await callRpc(deps.nc, Rpc.virtualAccountClose, { ref: landed.ref }, trace).catch((err: unknown) =>
        log.warn({ err, ref: landed.ref }, "virtual account close failed"),
      );
  }

  return {
    async onTransferResult(ev: TransferResult, trace: TraceContext) {
      if (refundAttemptOf(ev.requestId) === null) return onramp.onTransferResult(ev, trace);
      const result = { ok: ev.status === "CONFIRMED", txHash: ev.signature, reason: ev.reason };
      await deps.refunds.onResult(ev.requestId, result);
    },

    async onPayoutResult(ev: PayoutResult, trace: TraceContext) {
      if (refundAttemptOf(ev.orderId) !== null) {
        const result = { ok: ev.status === "COMPLETED", railReference: ev.reference, reason: ev.reason };
        return deps.refunds.onResult(ev.orderId, result);
      }
      await offramp.onPayoutResult(ev, trace);
      if (ev.status !== "FAILED") return;
      // Whether this delivery or an earlier one moved it: the exception is keyed by the order.
      const order = await store.get(ev.orderId);
      if (order?.status === "ERROR") await raiseRefundable(payoutFailed(order), { orderId: ev.orderId });
    },

    async onFiatDeposit(ev: FiatDepositReceived, trace: TraceContext) {
      const landed: LandedFunds = {
        id: `fiat:${ev.reference}`,
        ref: ev.ref,
        amount: ev.fiatAmount,
        detail: ev,
      };
      await apply(landed, await store.get(ev.ref), trace);
    },

    async onChainDeposit(ev: DepositObserved, trace: TraceContext) {
      const landed: LandedFunds = {
        id: `chain:${ev.chain}:${ev.txId}:${ev.index}`,
        ref: ev.ref,
        amount: ev.amount,
        chain: { chain: ev.chain, mint: ev.mint, txId: ev.txId, sender: ev.sender },
        detail: ev,
      };
      // A registered bank account's address: each deposit becomes its own offramp of the registrant.
      const order =
        ev.purpose === "bank-account"
          ? await openBankAccountOrder(deps, ev, landed.id, trace)
          : await store.get(ev.ref);
      await apply(landed, order, trace);
    },
  };
}
