import type { JetStreamClient } from "@nats-io/jetstream";
import {
  type Chain,
  type Currency,
  Events,
  type ExceptionDto,
  type ExceptionKind,
  type ExceptionStatus,
} from "@ramp/contracts";
import {
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
import { type Db, type Filter, ObjectId } from "mongodb";

/** One exception in the queue. `key` makes a repeat of the same raise the same exception. */
export interface ExceptionDoc {
  _id: ObjectId;
  key: string;
  kind: ExceptionKind;
  status: ExceptionStatus;
  businessId: string | null;
  orderId?: string;
  fundId?: string;
  chain?: Chain;
  token?: string;
  amount?: string;
  currency?: Currency;
  since: Date;
  detail: string;
  resolvedAt: Date | null;
  note: string | null;
  /** The operator's person id, or "system" when a refund or the raising service closed it. */
  resolvedBy: string | null;
  outbox: OutboxEntry[];
}

export type RaisedException = Omit<
  ExceptionDoc,
  "_id" | "status" | "resolvedAt" | "note" | "resolvedBy" | "outbox"
>;

/**
 * Kinds another service raises: resolving one tells that service, which undoes what it paused. `stuck`
 * is raised here for orders and by chain-watcher for a held consolidation, which resolving releases;
 * each service acts only on the keys it raised.
 */
const RAISED_ELSEWHERE: ReadonlySet<ExceptionKind> = new Set([
  "webhook-endpoint-failing",
  "treasury-low",
  "stuck",
]);

export interface ExceptionQueueFilter {
  kind?: ExceptionKind | undefined;
  status?: ExceptionStatus | undefined;
  businessId?: string | undefined;
}

export interface ExceptionsStore {
  init(): Promise<void>;
  /** Opens the exception once per key; a repeat (or one already resolved) changes nothing. */
  raise(e: RaisedException): Promise<void>;
  /** Closes the open exception of this key, if any (the condition passed, or a refund settled it). */
  clear(key: string, note: string): Promise<void>;
  /** Closes by id with an operator's note; `changed` is false when it was already resolved. */
  resolve(
    id: string,
    note: string,
    by: string,
    trace: TraceContext,
  ): Promise<{ doc: ExceptionDoc; changed: boolean } | null>;
  /** Up to `limit` exceptions after the `after` id, newest first. */
  page(filter: ExceptionQueueFilter, after: ObjectId | null, limit: number): Promise<ExceptionDoc[]>;
  startSweeper(): Stoppable;
}

export function exceptionDto(d: ExceptionDoc): ExceptionDto {
  return {
    id: d._id.toHexString(),
    kind: d.kind,
    status: d.status,
    businessId: d.businessId,
    ...(d.orderId ? { orderId: d.orderId } : {}),
    ...(d.fundId ? { fundId: d.fundId } : {}),
    ...(d.chain ? { chain: d.chain } : {}),
    ...(d.token ? { token: d.token } : {}),
    ...(d.amount ? { amount: d.amount } : {}),
    ...(d.currency ? { currency: d.currency } : {}),
    since: d.since.toISOString(),
    detail: d.detail,
    resolvedAt: d.resolvedAt?.toISOString() ?? null,
    note: d.note,
  };
}

export function createExceptionsStore(deps: { db: Db; js: JetStreamClient; log: Logger }): ExceptionsStore {
  const col = deps.db.collection<ExceptionDoc>("exceptions");
  return {
    async init() {
      await col.createIndex({ key: 1 }, { unique: true, name: "exception_key" });
      // The queue is read by status (open is the pending work) and kind, newest first; a business's
      // view by business first. Both serve their sort from the index.
      await col.createIndex({ status: 1, kind: 1, _id: -1 }, { name: "exception_queue" });
      await col.createIndex({ businessId: 1, status: 1, _id: -1 }, { name: "exception_business" });
    },
    async raise(e) {
      try {
        await col.insertOne({
          ...e,
          _id: new ObjectId(),
          status: "open",
          resolvedAt: null,
          note: null,
          resolvedBy: null,
          outbox: [],
        });
        deps.log.warn({ key: e.key, kind: e.kind, orderId: e.orderId }, "exception raised");
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },
    async clear(key, note) {
      await col.updateOne(
        { key, status: "open" },
        { $set: { status: "resolved", resolvedAt: new Date(), note, resolvedBy: "system" } },
      );
    },
    async resolve(id, note, by, trace) {
      if (!ObjectId.isValid(id)) return null;
      const _id = new ObjectId(id);
      const current = await col.findOne({ _id });
      if (!current) return null;
      if (current.status === "resolved") return { doc: current, changed: false };
      const told = RAISED_ELSEWHERE.has(current.kind)
        ? [
            outboxEntry(
              Events.exceptionResolved,
              { key: current.key, kind: current.kind, note },
              `exception-resolved:${current.key}`,
              trace,
            ),
          ]
        : [];
      // The claim is the status condition: of two operators resolving at once, one changes it.
      const doc = await col.findOneAndUpdate(
        { _id, status: "open" },
        {
          $set: {
            status: "resolved",
            resolvedAt: new Date(),
            note,
            resolvedBy: by,
            outbox: told,
            ...(told.length > 0 ? { [OUTBOX_PENDING]: true } : {}),
          },
        },
        { returnDocument: "after" },
      );
      if (!doc) return { doc: (await col.findOne({ _id })) ?? current, changed: false };
      if (told.length > 0) await flushOrDefer(deps.js, col, _id, deps.log, { stored: doc.outbox });
      return { doc, changed: true };
    },
    async page(filter, after, limit) {
      const query: Filter<ExceptionDoc> = {};
      if (filter.businessId) query.businessId = filter.businessId;
      if (filter.status) query.status = filter.status;
      if (filter.kind) query.kind = filter.kind;
      if (after) query._id = { $lt: after };
      return col
        .find(query, { projection: { outbox: 0 } })
        .sort({ _id: -1 })
        .limit(limit)
        .toArray();
    },
    startSweeper: () => startOutboxSweeper(deps.js, col, deps.log),
  };
}
