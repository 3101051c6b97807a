import type { JetStreamClient } from "@nats-io/jetstream";
import { Events, type PayoutCommand } from "@ramp/contracts";
import {
  type Claims,
  createStateStore,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  type Stoppable,
  type TraceContext,
} from "@ramp/runtime";
import type { Db } from "mongodb";
import type { BankRail } from "../rails/bank-rail.ts";
import { type FailedAsks, payWithRetries, type RetryPolicy } from "./rail-retries.ts";

type PayoutStatus = "PENDING" | "COMPLETED" | "FAILED";

export interface PayoutDoc {
  _id: string; // orderId: one payout per order
  command: PayoutCommand;
  status: PayoutStatus;
  reference: string | null;
  reason: string | null;
  /** Asks the rail failed (a timeout, a 5xx) so far and the last one's failure: PAYOUT_ATTEMPTS bounds them across restarts. */
  railFailures?: number;
  lastRailFailure?: string | null;
  createdAt: Date;
  outbox: OutboxEntry[];
}

/** Pays orders out through the bank rail, once each. */
export interface Payouts {
  handle(command: PayoutCommand, trace: TraceContext): Promise<void>;
  startSweeper(): Stoppable;
}

/**
 * The record is created before the rail is asked; the rail is idempotent per order, so a crash between
 * asking and recording just asks again and gets the same answer, and the result is announced once.
 */
export function createPayouts(deps: {
  db: Db;
  rail: BankRail;
  js: JetStreamClient;
  claims: Claims;
  log: Logger;
  retry: RetryPolicy;
}): Payouts {
  const col = deps.db.collection<PayoutDoc>("payouts");
  const states = createStateStore<PayoutDoc, PayoutStatus>({
    collection: col,
    stateField: "status",
    // A payout's change sets and announces the rail's answer alone, whatever else the record holds.
    decidedBy: [],
    ...deps,
  });
  return {
    async handle(command, trace) {
      const orderId = command.orderId;
      const created = await states.insert({
        _id: orderId,
        command,
        status: "PENDING",
        reference: null,
        reason: null,
        createdAt: new Date(),
        outbox: [],
      });
      // Just created, it is PENDING; a redelivered command reads what the first delivery got to.
      const found = created ? null : await col.findOne({ _id: orderId });
      if (!created && found?.status !== "PENDING") {
        await states.flush(orderId);
        return;
      }
      const asks: FailedAsks = {
        failed: found?.railFailures ?? 0,
        lastFailure: found?.lastRailFailure ?? null,
        record: async (failed, failure) => {
          await states.update(orderId, "PENDING", {}, { railFailures: failed, lastRailFailure: failure });
        },
      };
      if (asks.failed > 0)
        deps.log.warn({ orderId, failed: asks.failed }, "payout resumed after a restart; counting on");
      const result = await payWithRetries(
        deps.rail,
        command,
        deps.retry,
        undefined,
        (attempt, err) =>
          deps.log.warn({ orderId, attempt, err: err.message }, "bank rail failed; asking again"),
        asks,
      );
      await states.transition({
        id: orderId,
        from: "PENDING",
        to: result.status,
        cause: `rail:${result.reference}`,
        set: () => ({ reference: result.reference, reason: result.reason }),
        events: () => [
          outboxEntry(
            Events.payoutResult,
            { orderId, status: result.status, reference: result.reference, reason: result.reason },
            `payout:${orderId}`,
            trace,
          ),
        ],
      });
      deps.log.info(
        { orderId, status: result.status, reference: result.reference },
        "payout answered by rail",
      );
    },
    startSweeper: () => states.startSweeper(),
  };
}

/** The payouts created in [from, to), by id, one page after `cursor`: what reconciliation checks. */
export function payoutsOfDay(db: Db) {
  const col = db.collection<PayoutDoc>("payouts");
  return {
    init: () => col.createIndex({ createdAt: 1, _id: 1 }, { name: "payouts_by_day" }),
    async page(req: { from: string; to: string; cursor?: string | undefined; limit: number }) {
      const docs = await col
        .find({
          createdAt: { $gte: new Date(req.from), $lt: new Date(req.to) },
          ...(req.cursor ? { _id: { $gt: req.cursor } } : {}),
        })
        .sort({ _id: 1 })
        .limit(req.limit)
        .toArray();
      const data = docs.map((d) => ({
        id: d._id,
        status: d.status,
        reference: d.reference,
        currency: d.command.currency,
        fiatAmount: d.command.fiatAmount,
      }));
      return { data, nextCursor: docs.length === req.limit ? (docs[docs.length - 1]?._id ?? "") : "" };
    },
  };
}
