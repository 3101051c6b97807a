import type { JetStreamClient } from "@nats-io/jetstream";
import { Events, type OrderStatus } from "@ramp/contracts";
import {
  type Claims,
  createStateStore,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  type Stoppable,
  type TraceContext,
} from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import { type OrderDoc, toDto } from "./order-doc.ts";

export interface OrderMove {
  id: ObjectId;
  from: OrderStatus;
  to: OrderStatus;
  /** What moves it; only one cause ever leaves a state (see StateStore). */
  cause: string;
  set?: Partial<OrderDoc>;
  trace: TraceContext;
  /** Messages besides the status event, saved with the change (a payout or transfer command). */
  extra?: (order: OrderDoc) => OutboxEntry[];
}

/**
 * Orders persistence. Every status change bumps `sequence` and queues the status-changed event in the
 * same update, so a change and its announcement cannot drift apart.
 */
export interface OrdersStore {
  init(): Promise<void>;
  insert(doc: OrderDoc): Promise<boolean>;
  get(id: string | ObjectId): Promise<OrderDoc | null>;
  getForBusiness(id: string, businessId: string): Promise<OrderDoc | null>;
  /** The order after this cause moved it, or null when it is elsewhere or another cause owns the exit. */
  transition(move: OrderMove): Promise<OrderDoc | null>;
  claimExit(id: ObjectId, from: OrderStatus, to: OrderStatus | "DELETED", cause: string): Promise<boolean>;
  /** Unpaid onramp orders past their TTL, oldest first. */
  dueForExpiry(now: Date, limit: number): Promise<ObjectId[]>;
  /** Deletes an order still in INIT (its exit claimed for deletion first). */
  deleteUnpaid(id: ObjectId): Promise<boolean>;
  startSweeper(): Stoppable;
}

export function createOrdersStore(deps: {
  db: Db;
  js: JetStreamClient;
  claims: Claims;
  log: Logger;
}): OrdersStore {
  const col = deps.db.collection<OrderDoc>("orders");
  const states = createStateStore<OrderDoc, OrderStatus>({ collection: col, stateField: "status", ...deps });

  const get = async (id: string | ObjectId) => {
    if (typeof id === "string" && !ObjectId.isValid(id)) return null;
    return col.findOne({ _id: new ObjectId(id) });
  };

  return {
    async init() {
      await col.createIndex({ businessId: 1, createdAt: -1 });
      await col.createIndex({ status: 1, expiresAt: 1 });
    },
    insert: (doc) => states.insert(doc),
    get,
    async getForBusiness(id, businessId) {
      const doc = await get(id);
      return doc && doc.businessId === businessId ? doc : null;
    },
    async transition({ id, from, to, cause, set = {}, trace, extra = () => [] }) {
      const moved = await states.transition({
        id,
        from,
        to,
        cause,
        set: (current) => ({ ...set, sequence: current.sequence + 1 }),
        events: (next) => [
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
        ],
      });
      if (moved)
        deps.log.info(
          { orderId: id.toHexString(), from, to, requestId: trace.requestId },
          "order status changed",
        );
      return moved;
    },
    claimExit: (id, from, to, cause) => states.claimExit(id, from, to, cause),
    async dueForExpiry(now, limit) {
      const due = await col
        .find(
          { transactionType: "ON_RAMP", status: "INIT", expiresAt: { $lte: now } },
          { projection: { _id: 1 } },
        )
        .sort({ expiresAt: 1 })
        .limit(limit)
        .toArray();
      return due.map((d) => d._id);
    },
    async deleteUnpaid(id) {
      return (await col.deleteOne({ _id: id, status: "INIT" })).deletedCount === 1;
    },
    startSweeper: () => states.startSweeper(),
  };
}
