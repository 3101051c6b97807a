import type { JetStreamClient } from "@nats-io/jetstream";
import { Events, type OrderStatus } from "@ramp/contracts";
import {
  flushOutbox,
  isDuplicateKey,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  type TraceContext,
} from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import { type OrderDoc, toDto } from "./order-doc.ts";

/** Which way an order left a state; one per (order, state), whoever asks first. */
interface ExitDoc {
  _id: string;
  to: string;
  at: Date;
}

/**
 * Orders persistence. Every status change is one conditional update on `{_id, status: from}` that also
 * pushes its events onto the document's outbox, so a change and its announcement cannot drift apart.
 */
export function createOrdersStore(deps: { db: Db; js: JetStreamClient; log: Logger }) {
  const col = deps.db.collection<OrderDoc>("orders");
  const exits = deps.db.collection<ExitDoc>("status_exits");
  const store = {
    collection: col,
    /**
     * Claims the one way out of `from` for this order. MongoDB's conditional update is atomic already,
     * but FerretDB's is not under concurrency; an insert on a unique `_id` is atomic on both, so two
     * racing transitions (COMPLETED vs ERROR, paid vs expired) can never both happen. Claiming the same
     * way twice succeeds, so a redelivered message after a crash still finishes its transition.
     */
    async claimExit(id: ObjectId, from: OrderStatus, to: OrderStatus | "DELETED"): Promise<boolean> {
      const key = `${id.toHexString()}:${from}`;
      try {
        await exits.insertOne({ _id: key, to, at: new Date() });
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        return (await exits.findOne({ _id: key }))?.to === to;
      }
    },
    async init() {
      await col.createIndex({ businessId: 1, createdAt: -1 });
      await col.createIndex({ status: 1, expiresAt: 1 });
    },
    async insert(doc: OrderDoc) {
      await col.insertOne(doc);
    },
    async get(id: string): Promise<OrderDoc | null> {
      if (!ObjectId.isValid(id)) return null;
      return col.findOne({ _id: new ObjectId(id) });
    },
    async getForBusiness(id: string, businessId: string): Promise<OrderDoc | null> {
      const doc = await store.get(id);
      return doc && doc.businessId === businessId ? doc : null;
    },
    /**
     * Moves `id` from `from` to `to`, applying `set` and queuing the status event plus `extra` messages.
     * Returns the updated order, or null when the order was not in `from` (already moved: a no-op).
     */
    async transition(
      id: ObjectId,
      from: OrderStatus,
      to: OrderStatus,
      set: Partial<OrderDoc>,
      trace: TraceContext,
      extra: (order: OrderDoc) => OutboxEntry[] = () => [],
    ): Promise<OrderDoc | null> {
      const current = await col.findOne({ _id: id, status: from });
      if (!current || !(await store.claimExit(id, from, to))) return null;
      const next: OrderDoc = { ...current, ...set, status: to, sequence: current.sequence + 1 };
      const events = [
        outboxEntry(
          Events.orderStatusChanged,
          {
            businessId: next.businessId,
            apiKeyId: next.apiKeyId,
            webhookURL: next.webhookURL,
            sequence: next.sequence,
            order: toDto(next),
          },
          `${id.toHexString()}:${to}`,
          trace,
        ),
        ...extra(next),
      ];
      const updated = await col.findOneAndUpdate(
        { _id: id, status: from, sequence: current.sequence },
        { $set: { ...set, status: to, sequence: next.sequence }, $push: { outbox: { $each: events } } },
        { returnDocument: "after" },
      );
      if (!updated) return null;
      deps.log.info(
        { orderId: id.toHexString(), from, to, requestId: trace.requestId },
        "order status changed",
      );
      await flushOutbox(deps.js, col, id, deps.log).catch((err) =>
        deps.log.warn({ err }, "outbox flush deferred to sweeper"),
      );
      return updated;
    },
  };
  return store;
}
export type OrdersStore = ReturnType<typeof createOrdersStore>;
