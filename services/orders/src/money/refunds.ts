import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  AppError,
  badRequest,
  type Chain,
  Commands,
  type Currency,
  DepositObserved,
  FiatDepositReceived,
  isChainAddress,
  notFound,
  type RefundDto,
  type RefundRequest,
  type RefundState,
  Rpc,
} from "@ramp/contracts";
import {
  callRpc,
  flushOrDefer,
  isDuplicateKey,
  type Logger,
  OUTBOX_PENDING,
  type OutboxEntry,
  outboxEntry,
  type Stoppable,
  startOutboxSweeper,
  type TraceContext,
} from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { ReceivedFundsDoc } from "../orders/received-funds.ts";
import type { ExceptionsStore } from "./exceptions-store.ts";

/**
 * One refund per received fund: its `_id` is the fund's, so the insert is the claim. Whichever route
 * or click asks, however often, one record exists and one command leaves (its outbox, sent with a
 * deterministic message id to chain-watcher or banking, which each execute a request id once).
 */
export interface RefundDoc {
  _id: string;
  orderId: string | null;
  businessId: string | null;
  state: RefundState;
  destination: RefundRequest;
  chain: Chain | null;
  token: string | null;
  currency: Currency | null;
  amount: string;
  txHash: string | null;
  railReference: string | null;
  reason: string | null;
  /** When its transfer or payout was confirmed: the day reconciliation counts it in. */
  sentAt?: Date;
  requestedBy: string;
  requestedAt: Date;
  outbox: OutboxEntry[];
}

/** The request id of a refund's transfer or payout: never an ObjectId, so order handlers pass it by. */
export const REFUND_PREFIX = "refund:";
export const refundRequestId = (fundId: string) => `${REFUND_PREFIX}${fundId}`;
export const refundedFundOf = (requestId: string) =>
  requestId.startsWith(REFUND_PREFIX) ? requestId.slice(REFUND_PREFIX.length) : null;

const conflict = (message: string) => new AppError("CONFLICT", message);

export function refundDto(d: RefundDoc): RefundDto {
  return {
    id: d._id,
    fundId: d._id,
    orderId: d.orderId,
    state: d.state,
    destination: d.destination,
    chain: d.chain,
    token: d.token,
    currency: d.currency,
    amount: d.amount,
    txHash: d.txHash,
    railReference: d.railReference,
    reason: d.reason,
    requestedAt: d.requestedAt.toISOString(),
  };
}

const sameDestination = (a: RefundRequest, b: RefundRequest) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

export interface RefundsDeps {
  db: Db;
  js: JetStreamClient;
  nc: NatsConnection;
  exceptions: ExceptionsStore;
  getOrder(id: string): Promise<OrderDoc | null>;
  log: Logger;
}

export function createRefunds(deps: RefundsDeps) {
  const refunds = deps.db.collection<RefundDoc>("refunds");
  const funds = deps.db.collection<ReceivedFundsDoc>("received_funds");

  /** The fund a request names: by id (not applied), or the applied deposit of an ERROR offramp. */
  async function fundFor(req: { fundId?: string | undefined; orderId?: string | undefined }) {
    if (req.orderId !== undefined) {
      const order = await deps.getOrder(req.orderId);
      if (!order) throw notFound("Transaction not found");
      if (order.transactionType !== "OFF_RAMP" || order.status !== "ERROR")
        throw conflict("Only an offramp in ERROR has tokens to refund");
      const fund = await funds.findOne({ orderId: req.orderId, outcome: { $in: ["applied", "refunded"] } });
      if (!fund) throw conflict("The order kept no deposit; refund its fund from the exceptions queue");
      return { fund, businessId: order.businessId };
    }
    const fund = await funds.findOne({ _id: req.fundId ?? "" });
    if (!fund) throw notFound("Fund not found");
    if (fund.outcome === "applied") throw conflict("The fund was applied to its order; it is not refundable");
    const order = fund.orderId && ObjectId.isValid(fund.orderId) ? await deps.getOrder(fund.orderId) : null;
    return { fund, businessId: order?.businessId ?? null };
  }

  /** What the refund sends and to whom: validated against the fund's own asset before anything is stored. */
  async function plan(
    fund: ReceivedFundsDoc,
    destination: RefundRequest,
    trace: TraceContext,
  ): Promise<Pick<RefundDoc, "chain" | "token" | "currency" | "amount"> & { command: OutboxEntry }> {
    const requestId = refundRequestId(fund._id);
    const chainFund = DepositObserved.safeParse(fund.detail);
    if (chainFund.success) {
      const ev = chainFund.data;
      if (!("toAddress" in destination)) throw badRequest("A token fund is refunded to toAddress");
      if (!isChainAddress(ev.chain, destination.toAddress))
        throw badRequest(`toAddress is not a ${ev.chain} address`);
      const command = outboxEntry(
        Commands.chainTransfer,
        { requestId, chain: ev.chain, mint: ev.mint, recipient: destination.toAddress, amount: ev.amount },
        `transfer:${requestId}`,
        trace,
      );
      return { chain: ev.chain, token: ev.mint, currency: null, amount: ev.amount, command };
    }
    const fiatFund = FiatDepositReceived.safeParse(fund.detail);
    if (!fiatFund.success) throw conflict("The fund's record does not say what to send back");
    const ev = fiatFund.data;
    if (!("bankCode" in destination))
      throw badRequest("A fiat fund is refunded to bankCode and accountNumber");
    const account = await callRpc(deps.nc, Rpc.accountsResolve, destination, trace).catch((err: unknown) => {
      // An account the bank does not know is the operator's input error, not a missing fund.
      if (err instanceof AppError && err.code === "NOT_FOUND") throw badRequest("Bank account not found");
      throw err;
    });
    const command = outboxEntry(
      Commands.bankingPayout,
      {
        orderId: requestId,
        bankCode: destination.bankCode,
        accountNumber: destination.accountNumber,
        accountName: account.accountName,
        currency: ev.currency,
        fiatAmount: ev.fiatAmount,
        narration: `Refund ${ev.reference}`,
      },
      `payout:${requestId}`,
      trace,
    );
    return { chain: null, token: null, currency: ev.currency, amount: ev.fiatAmount, command };
  }

  return {
    async init() {
      // A result finds its refund by _id; reconciliation reads a day's sent refunds.
      await refunds.createIndex({ state: 1, sentAt: 1 }, { name: "refunds_sent" });
    },

    async request(
      req: {
        fundId?: string | undefined;
        orderId?: string | undefined;
        destination: RefundRequest;
        by: string;
      },
      trace: TraceContext,
    ): Promise<{ refund: RefundDoc; created: boolean }> {
      const { fund, businessId } = await fundFor(req);
      const existing = await refunds.findOne({ _id: fund._id });
      const repeat = (doc: RefundDoc) => {
        if (!sameDestination(doc.destination, req.destination))
          throw conflict("The fund is already being refunded to another destination");
        return { refund: doc, created: false };
      };
      if (existing) return repeat(existing);
      const { command, ...what } = await plan(fund, req.destination, trace);
      const doc: RefundDoc & { [OUTBOX_PENDING]: true } = {
        _id: fund._id,
        orderId: fund.orderId,
        businessId,
        state: "pending",
        destination: req.destination,
        ...what,
        txHash: null,
        railReference: null,
        reason: null,
        requestedBy: req.by,
        requestedAt: new Date(),
        outbox: [command],
        [OUTBOX_PENDING]: true,
      };
      try {
        await refunds.insertOne(doc);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // A concurrent request claimed it first: one refund, and this one answers it.
        const first = await refunds.findOne({ _id: fund._id });
        if (!first) throw err;
        return repeat(first);
      }
      deps.log.info({ fundId: fund._id, orderId: fund.orderId, by: req.by }, "refund claimed");
      await flushOrDefer(deps.js, refunds, doc._id, deps.log, { stored: doc.outbox });
      return { refund: doc, created: true };
    },

    /** The transfer's or payout's answer; safe to receive twice. */
    async onResult(
      fundId: string,
      result: { ok: boolean; txHash?: string; railReference?: string; reason: string | null },
    ) {
      const state: RefundState = result.ok ? "sent" : "failed";
      await refunds.updateOne(
        { _id: fundId, state: "pending" },
        {
          $set: {
            state,
            txHash: result.txHash ?? null,
            railReference: result.railReference ?? null,
            reason: result.reason,
            ...(result.ok ? { sentAt: new Date() } : {}),
          },
        },
      );
      const refund = await refunds.findOne({ _id: fundId });
      if (!refund) return;
      if (refund.state !== "sent") {
        deps.log.error({ fundId, reason: refund.reason }, "refund failed; the fund stays refundable");
        return;
      }
      const proof = refund.txHash ?? refund.railReference ?? "";
      const d = refund.destination;
      const destination = "toAddress" in d ? d.toAddress : `${d.bankCode}/${d.accountNumber}`;
      const at = refund.sentAt ?? new Date();
      const proofs = { txHash: refund.txHash, railReference: refund.railReference };
      await funds.updateOne(
        { _id: fundId },
        { $set: { outcome: "refunded", refund: { ...proofs, destination, at } } },
      );
      await deps.exceptions.clear(`refundable-funds:${fundId}`, `refunded (${proof})`);
      if (refund.orderId)
        await deps.exceptions.clear(`payout-failed:${refund.orderId}`, `refunded (${proof})`);
    },

    startSweeper: (): Stoppable => startOutboxSweeper(deps.js, refunds, deps.log),
  };
}
export type Refunds = ReturnType<typeof createRefunds>;
