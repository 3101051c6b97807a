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
  type Claims,
  callRpc,
  createOutboxCollection,
  type Logger,
  OUTBOX_PENDING,
  type OutboxEntry,
  outboxEntry,
  type Stoppable,
  type TraceContext,
} from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { ReceivedFundsDoc } from "../orders/received-funds.ts";
import type { ExceptionsStore } from "./exceptions-store.ts";
import { payoutFailedKey, refundableFundsKey } from "./raised-here.ts";

/** What a refund's clear writes on the exceptions it settles: the tx hash or rail reference that proves it. */
const refundedNote = (p: { txHash?: string | null; railReference?: string | null }) =>
  `refunded (${p.txHash ?? p.railReference ?? ""})`;

/** An attempt that failed for good, kept on its refund when the operator asks again. */
export interface FailedRefundAttempt {
  attempt: number;
  destination: RefundRequest;
  txHash: string | null;
  railReference: string | null;
  reason: string | null;
  requestedBy: string;
  requestedAt: Date;
}

/**
 * One refund per received fund: its `_id` is the fund's, so the insert is the claim. Whichever route
 * or click asks, however often, one record exists and one command leaves per attempt (its outbox,
 * sent with a deterministic message id to chain-watcher or banking, which each execute a request id
 * once). An attempt that failed for good may be asked again: the next attempt has a request id of its
 * own, and the failed one stays in `failedAttempts`.
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
  /** The attempt under way or last made, from 1 (absent on records from before retries: 1). */
  attempt?: number;
  failedAttempts?: FailedRefundAttempt[];
  outbox: OutboxEntry[];
}

/**
 * The request id of a refund attempt's transfer or payout: never an ObjectId, so order handlers pass
 * it by. The first attempt is `refund:<fundId>`, a later one `refund:<n>:<fundId>` (a fund id starts
 * with `fiat:` or `chain:`, never a digit, so the two cannot be confused).
 */
export const REFUND_PREFIX = "refund:";
export const refundRequestId = (fundId: string, attempt = 1) =>
  attempt <= 1 ? `${REFUND_PREFIX}${fundId}` : `${REFUND_PREFIX}${attempt}:${fundId}`;
export function refundAttemptOf(requestId: string): { fundId: string; attempt: number } | null {
  if (!requestId.startsWith(REFUND_PREFIX)) return null;
  const rest = requestId.slice(REFUND_PREFIX.length);
  const retry = /^(\d+):(.+)$/.exec(rest);
  return retry ? { fundId: retry[2] as string, attempt: Number(retry[1]) } : { fundId: rest, attempt: 1 };
}
const attemptOf = (d: RefundDoc) => d.attempt ?? 1;

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
    attempt: attemptOf(d),
    failedAttempts: (d.failedAttempts ?? []).map((a) => ({
      attempt: a.attempt,
      destination: a.destination,
      txHash: a.txHash,
      railReference: a.railReference,
      reason: a.reason,
      requestedAt: a.requestedAt.toISOString(),
    })),
  };
}

const sameDestination = (a: RefundRequest, b: RefundRequest) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** The fields of an attempt just asked for: pending, its command in the outbox. */
function newAttempt(
  req: { destination: RefundRequest; by: string },
  attempt: number,
  what: Pick<RefundDoc, "chain" | "token" | "currency" | "amount">,
  command: OutboxEntry,
) {
  return {
    state: "pending" as const,
    destination: req.destination,
    ...what,
    txHash: null,
    railReference: null,
    reason: null,
    requestedBy: req.by,
    requestedAt: new Date(),
    attempt,
    outbox: [command],
    [OUTBOX_PENDING]: true as const,
  };
}

export interface RefundsDeps {
  db: Db;
  js: JetStreamClient;
  nc: NatsConnection;
  claims: Claims;
  exceptions: ExceptionsStore;
  getOrder(id: string): Promise<OrderDoc | null>;
  log: Logger;
}

export function createRefunds(deps: RefundsDeps) {
  const refunds = deps.db.collection<RefundDoc>("refunds");
  const funds = deps.db.collection<ReceivedFundsDoc>("received_funds");
  // A refund is written after its insert (its result, a retry) while its outbox may be emptied: on
  // FerretDB each write rewrites the whole document, so every write holds the document alone.
  const store = createOutboxCollection({
    collection: refunds,
    js: deps.js,
    log: deps.log,
    claims: deps.claims,
  });
  const alone = <T>(id: string, write: () => Promise<T>) =>
    deps.claims.exclusive(`${refunds.collectionName}:${id}`, write);

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
    attempt: number,
    trace: TraceContext,
  ): Promise<Pick<RefundDoc, "chain" | "token" | "currency" | "amount"> & { command: OutboxEntry }> {
    const requestId = refundRequestId(fund._id, attempt);
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

  /**
   * A refund whose last attempt failed for good is asked again: a new attempt (its own request id,
   * to the destination asked now) replaces it, and the failed attempt is kept on the record. Racing
   * clicks start one attempt: the first to find the record still failed.
   */
  async function retry(
    failed: RefundDoc,
    req: { destination: RefundRequest; by: string },
    trace: TraceContext,
  ): Promise<{ refund: RefundDoc; created: boolean }> {
    const fund = await funds.findOne({ _id: failed._id });
    if (!fund) throw notFound("Fund not found");
    const attempt = attemptOf(failed) + 1;
    const { command, ...what } = await plan(fund, req.destination, attempt, trace);
    const previous: FailedRefundAttempt = {
      attempt: attemptOf(failed),
      destination: failed.destination,
      txHash: failed.txHash,
      railReference: failed.railReference,
      reason: failed.reason,
      requestedBy: failed.requestedBy,
      requestedAt: failed.requestedAt,
    };
    const next = newAttempt(req, attempt, what, command);
    // Written alone (FerretDB updates a document by rewriting it, outside any lock): one of racing
    // clicks finds it still failed and starts the next attempt; the others answer that one.
    const claimed = await alone(failed._id, async () => {
      const now = await refunds.findOne({ _id: failed._id });
      if (now?.state !== "failed" || attemptOf(now) !== attemptOf(failed)) return { now, started: false };
      const after = { ...now, ...next, failedAttempts: [...(now.failedAttempts ?? []), previous] };
      await refunds.replaceOne({ _id: failed._id, state: "failed" }, after);
      return { now: after, started: true };
    });
    if (!claimed.started) {
      const { now } = claimed;
      if (!now) throw notFound("Fund not found");
      if (now.state === "failed") return retry(now, req, trace);
      if (!sameDestination(now.destination, req.destination))
        throw conflict("The fund is already being refunded to another destination");
      return { refund: now, created: false };
    }
    const started = claimed.now as RefundDoc;
    deps.log.info({ fundId: failed._id, attempt, by: req.by }, "refund asked again after a failed attempt");
    await store.flush(failed._id, started.outbox);
    return { refund: started, created: true };
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
      if (existing?.state === "failed") return retry(existing, req, trace);
      if (existing) return repeat(existing);
      const { command, ...what } = await plan(fund, req.destination, 1, trace);
      const doc: RefundDoc & { [OUTBOX_PENDING]: true } = {
        _id: fund._id,
        orderId: fund.orderId,
        businessId,
        ...newAttempt(req, 1, what, command),
        failedAttempts: [],
      };
      if (!(await store.insert(doc))) {
        // A concurrent request claimed it first: one refund, and this one answers it.
        const first = await refunds.findOne({ _id: fund._id });
        if (!first) throw new Error(`refund ${fund._id} claimed but not found`);
        return repeat(first);
      }
      deps.log.info({ fundId: fund._id, orderId: fund.orderId, by: req.by }, "refund claimed");
      return { refund: doc, created: true };
    },

    /** An attempt's transfer or payout answer; safe to receive twice, and about its own attempt only. */
    async onResult(
      requestId: string,
      result: { ok: boolean; txHash?: string; railReference?: string; reason: string | null },
    ) {
      const of = refundAttemptOf(requestId);
      if (!of) return;
      const { fundId, attempt } = of;
      const state: RefundState = result.ok ? "sent" : "failed";
      await alone(fundId, () =>
        refunds.updateOne(
          // A record from before retries has no attempt field: it is attempt 1.
          {
            _id: fundId,
            state: "pending",
            ...(attempt === 1 ? { $or: [{ attempt: 1 }, { attempt: { $exists: false } }] } : { attempt }),
          },
          {
            $set: {
              state,
              txHash: result.txHash ?? null,
              railReference: result.railReference ?? null,
              reason: result.reason,
              ...(result.ok ? { sentAt: new Date() } : {}),
            },
          },
        ),
      );
      const refund = await refunds.findOne({ _id: fundId });
      if (!refund || attemptOf(refund) !== attempt) return;
      if (refund.state !== "sent") {
        deps.log.error({ fundId, reason: refund.reason }, "refund failed; the fund stays refundable");
        return;
      }
      const d = refund.destination;
      const destination = "toAddress" in d ? d.toAddress : `${d.bankCode}/${d.accountNumber}`;
      const at = refund.sentAt ?? new Date();
      const proofs = { txHash: refund.txHash, railReference: refund.railReference };
      await funds.updateOne(
        { _id: fundId },
        { $set: { outcome: "refunded", refund: { ...proofs, destination, at } } },
      );
      const note = refundedNote(proofs);
      await deps.exceptions.clear(refundableFundsKey(fundId), note);
      if (refund.orderId) await deps.exceptions.clear(payoutFailedKey(refund.orderId), note);
    },

    /**
     * The note a refund of this fund (or of the order's fund) clears its exceptions with, or null while
     * it is not refunded: the fund is marked refunded before the refund clears its exceptions.
     */
    async refundedNote(of: { fundId: string } | { orderId: string }): Promise<string | null> {
      const which = "fundId" in of ? { _id: of.fundId } : { orderId: of.orderId };
      const fund = await funds.findOne({ ...which, outcome: "refunded" });
      return fund?.refund ? refundedNote(fund.refund) : null;
    },

    startSweeper: (): Stoppable => store.startSweeper(),
  };
}
export type Refunds = ReturnType<typeof createRefunds>;
