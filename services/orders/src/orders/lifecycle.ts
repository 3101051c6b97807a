import type { NatsConnection } from "@nats-io/transport-node";
import {
  AppError,
  Commands,
  type DepositObserved,
  type FiatDepositReceived,
  normalizeAddress,
  type PayoutResult,
  Rpc,
  type TransferResult,
} from "@ramp/contracts";
import { callRpc, isDuplicateKey, type Logger, outboxEntry, type TraceContext } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { Db } from "mongodb";
import type { Payments } from "../payments/payments.ts";
import { quoteOfframp, quoteOnramp } from "../quotes/quotes.ts";
import type { OrdersStore } from "./orders-store.ts";

export interface LifecycleDeps {
  db: Db;
  nc: NatsConnection;
  store: OrdersStore;
  payments: Payments;
  log: Logger;
}

interface ReceivedFunds {
  _id: string;
  kind: "fiat" | "chain";
  ref: string;
  orderId: string | null;
  /** What happened to it: moved an order, or kept for operators (late, other token, unknown order). */
  outcome: "applied" | "unmatched" | "other-token" | "ignored";
  detail: unknown;
  receivedAt: Date;
}

/**
 * Order reactions to the outside world. Each handler is idempotent: the conditional transition makes a
 * redelivered message a no-op, and every inbound fund is recorded once so nothing received is lost.
 */
export function createLifecycle(deps: LifecycleDeps) {
  const { store, log } = deps;
  const funds = deps.db.collection<ReceivedFunds>("received_funds");

  const record = async (entry: Omit<ReceivedFunds, "receivedAt">) => {
    try {
      await funds.insertOne({ ...entry, receivedAt: new Date() });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  };

  const fail = (reason: string) => ({ errorReason: reason });

  return {
    async onFiatDeposit(ev: FiatDepositReceived, trace: TraceContext) {
      const id = `fiat:${ev.reference}`;
      const order = await store.get(ev.ref);
      if (!order && (await deps.payments.onFunds(ev.ref, { amount: ev.fiatAmount }, trace))) {
        await record({ _id: id, kind: "fiat", ref: ev.ref, orderId: null, outcome: "applied", detail: ev });
        return;
      }
      if (order?.transactionType !== "ON_RAMP") {
        await record({ _id: id, kind: "fiat", ref: ev.ref, orderId: null, outcome: "unmatched", detail: ev });
        log.warn(
          { ref: ev.ref, reference: ev.reference },
          "fiat deposit for no open onramp order; kept for operators",
        );
        return;
      }
      await record({
        _id: id,
        kind: "fiat",
        ref: ev.ref,
        orderId: ev.ref,
        outcome: order.status === "INIT" ? "applied" : "ignored",
        detail: ev,
      });
      if (order.status !== "INIT") return;
      let amount = order.amount;
      let fiatAmount = order.fiatAmount;
      let usdcAmount = order.usdcAmount;
      // An underpayment is re-priced on what arrived; an overpayment still buys the quoted amount.
      if (new Decimal(ev.fiatAmount).lt(order.fiatAmount)) {
        try {
          const q = quoteOnramp({
            fiatAmount: ev.fiatAmount,
            rate: order.rate,
            fee: order.fee,
            usdPrice: order.usdPrice,
            decimals: order.decimals,
            setupCostUsd: order.setupCostUsd,
          });
          amount = q.amount.toString();
          fiatAmount = q.fiatAmount.toFixed(2);
          usdcAmount = q.usdcAmount.toString();
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          await store.transition(
            order._id,
            "INIT",
            "ERROR",
            { ...fail("deposit worth less than the fee"), fiatAmount: ev.fiatAmount, expiresAt: null },
            trace,
          );
          return;
        }
      }
      const moved = await store.transition(
        order._id,
        "INIT",
        "PROCESSING",
        { amount, fiatAmount, usdcAmount, expiresAt: null },
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
      if (moved)
        await callRpc(deps.nc, Rpc.virtualAccountClose, { ref: ev.ref }, trace).catch((err) =>
          log.warn({ err }, "virtual account close failed"),
        );
    },

    async onChainDeposit(ev: DepositObserved, trace: TraceContext) {
      const id = `chain:${ev.chain}:${ev.txId}:${ev.index}`;
      if (ev.purpose === "payment") {
        const found = await deps.payments.onFunds(
          ev.ref,
          { amount: ev.amount, mint: ev.mint, chain: ev.chain },
          trace,
        );
        await record({
          _id: id,
          kind: "chain",
          ref: ev.ref,
          orderId: null,
          outcome: found ? "applied" : "unmatched",
          detail: ev,
        });
        return;
      }
      if (ev.purpose !== "offramp") {
        await record({
          _id: id,
          kind: "chain",
          ref: ev.ref,
          orderId: null,
          outcome: "unmatched",
          detail: ev,
        });
        log.warn(
          { purpose: ev.purpose, ref: ev.ref, txId: ev.txId },
          "deposit for a purpose orders does not settle yet; kept for operators",
        );
        return;
      }
      const order = await store.get(ev.ref);
      if (order?.transactionType !== "OFF_RAMP") {
        await record({
          _id: id,
          kind: "chain",
          ref: ev.ref,
          orderId: null,
          outcome: "unmatched",
          detail: ev,
        });
        return;
      }
      if (normalizeAddress(ev.chain, ev.mint) !== order.mintKey || ev.chain !== order.chain) {
        await record({
          _id: id,
          kind: "chain",
          ref: ev.ref,
          orderId: ev.ref,
          outcome: "other-token",
          detail: ev,
        });
        log.warn({ orderId: ev.ref, mint: ev.mint }, "deposit of another token recorded; order unchanged");
        return;
      }
      await record({
        _id: id,
        kind: "chain",
        ref: ev.ref,
        orderId: ev.ref,
        outcome: order.status === "INIT" ? "applied" : "ignored",
        detail: ev,
      });
      if (order.status !== "INIT") return;
      const landed = { signature: ev.txId, sender: ev.sender };
      let priced: { amount: string; fiatAmount: string; usdcAmount: string };
      try {
        // Priced on what landed, whatever size was quoted.
        const q = quoteOfframp({
          amount: ev.amount,
          rate: order.rate,
          fee: order.fee,
          usdPrice: order.usdPrice,
          decimals: order.decimals,
        });
        priced = {
          amount: q.amount.toString(),
          fiatAmount: q.fiatAmount.toFixed(2),
          usdcAmount: q.usdcAmount.toString(),
        };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await store.transition(
          order._id,
          "INIT",
          "ERROR",
          { ...landed, amount: ev.amount, ...fail("deposit worth less than the fee") },
          trace,
        );
        return;
      }
      await store.transition(order._id, "INIT", "PROCESSING", { ...landed, ...priced }, trace, (o) => [
        outboxEntry(
          Commands.bankingPayout,
          {
            orderId: o._id.toHexString(),
            bankCode: o.bankCode,
            accountNumber: o.accountNumber,
            accountName: o.accountName,
            currency: o.currency,
            fiatAmount: o.fiatAmount,
            narration: o.description ?? `Offramp ${o._id.toHexString()}`,
          },
          `payout:${o._id.toHexString()}`,
          trace,
        ),
      ]);
    },

    async onPayoutResult(ev: PayoutResult, trace: TraceContext) {
      const order = await store.get(ev.orderId);
      if (!order) return;
      if (ev.status === "COMPLETED") await store.transition(order._id, "PROCESSING", "COMPLETED", {}, trace);
      else
        await store.transition(order._id, "PROCESSING", "ERROR", fail(ev.reason ?? "payout rejected"), trace);
    },

    async onTransferResult(ev: TransferResult, trace: TraceContext) {
      const order = await store.get(ev.requestId);
      if (!order) return;
      if (ev.status === "CONFIRMED")
        await store.transition(order._id, "PROCESSING", "COMPLETED", { signature: ev.signature }, trace);
      else
        await store.transition(
          order._id,
          "PROCESSING",
          "ERROR",
          { signature: ev.signature, ...fail(ev.reason ?? "delivery failed") },
          trace,
        );
    },
  };
}
