import { createHash } from "node:crypto";
import type { DeliveryAttemptDto, WebhookType } from "@ramp/contracts";
import { isDuplicateKey } from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import { laneIdOf } from "./lanes.ts";
import type { SendResult } from "./sender.ts";

export type DeliveryStatus = "pending" | "delivered" | "failed" | "superseded";

export interface DeliveryDoc {
  /** Derived from the event, so a redelivered JetStream message maps onto the same delivery. */
  _id: string;
  key: string;
  type: WebhookType;
  /** null: an order opened without an API key, delivered unsigned (spec §6). */
  apiKeyId: string | null;
  /** Order id or payment id. */
  subjectId: string;
  sequence: number;
  url: string;
  laneId: string;
  /** Serialised once; every attempt sends (and signs) exactly these bytes. */
  body: string;
  status: DeliveryStatus;
  attemptsMade: number;
  /** While an attempt runs this is pushed a lease ahead, so a crash only delays the delivery. */
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface AttemptDoc extends Omit<DeliveryAttemptDto, "id" | "createdAt"> {
  _id: ObjectId;
  apiKeyId: string | null;
  createdAt: Date;
}

export type NewDelivery = Pick<
  DeliveryDoc,
  "key" | "type" | "apiKeyId" | "subjectId" | "sequence" | "url" | "body"
>;

export const deliveryIdOf = (key: string) => createHash("sha256").update(key).digest("hex").slice(0, 24);

export function createDeliveriesStore(db: Db) {
  const deliveries = db.collection<DeliveryDoc>("deliveries");
  const attempts = db.collection<AttemptDoc>("attempts");

  return {
    async ensureIndexes(): Promise<void> {
      await deliveries.createIndex({ key: 1 }, { unique: true });
      await deliveries.createIndex({ status: 1, nextAttemptAt: 1 });
      await attempts.createIndex({ apiKeyId: 1, createdAt: -1 });
      await attempts.createIndex({ apiKeyId: 1, subjectId: 1, createdAt: -1 });
    },

    /** Idempotent: the same event stored twice is one delivery; returns it only when new. */
    async add(d: NewDelivery, firstDelayMs: number): Promise<DeliveryDoc | null> {
      const now = new Date();
      const doc: DeliveryDoc = {
        _id: deliveryIdOf(d.key),
        ...d,
        laneId: laneIdOf(d.subjectId, d.url),
        status: "pending",
        attemptsMade: 0,
        nextAttemptAt: new Date(now.getTime() + firstDelayMs),
        lastError: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await deliveries.insertOne(doc);
        return doc;
      } catch (err) {
        if (isDuplicateKey(err)) return null;
        throw err;
      }
    },

    /** Candidates only: nothing is taken until the lane lock is held (see lanes.ts). */
    async findDue(limit: number, skip: ReadonlySet<string>): Promise<DeliveryDoc[]> {
      return deliveries
        .find({ status: "pending", nextAttemptAt: { $lte: new Date() }, _id: { $nin: [...skip] } })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .toArray();
    },

    /** Re-read under the lane lock: only a delivery still pending and due may be attempted. */
    async reload(id: string): Promise<DeliveryDoc | null> {
      return deliveries.findOne({ _id: id, status: "pending", nextAttemptAt: { $lte: new Date() } });
    },

    /**
     * The other statuses of `d`'s order on the same URL, looked up by their derived _ids (cheap on
     * every backend): up to 16 sequences either side, far more than an order's lifecycle has.
     */
    async neighbours(
      d: DeliveryDoc,
    ): Promise<Array<Pick<DeliveryDoc, "sequence" | "attemptsMade" | "status">>> {
      if (d.type !== "RAMP") return [];
      const seqs: number[] = [];
      for (let s = Math.max(0, d.sequence - 16); s <= d.sequence + 16; s++)
        if (s !== d.sequence) seqs.push(s);
      const ids = seqs.map((s) => deliveryIdOf(`${d.subjectId}:${s}:${d.url}`));
      return deliveries
        .find({ _id: { $in: ids } }, { projection: { sequence: 1, attemptsMade: 1, status: 1 } })
        .toArray();
    },

    /** Only the lane-lock holder calls this. */
    async update(
      d: DeliveryDoc,
      set: Partial<Pick<DeliveryDoc, "status" | "attemptsMade" | "nextAttemptAt" | "lastError">>,
    ): Promise<void> {
      await deliveries.updateOne({ _id: d._id }, { $set: { ...set, updatedAt: new Date() } });
    },

    async get(apiKeyId: string, deliveryId: string): Promise<DeliveryDoc | null> {
      return deliveries.findOne({ _id: deliveryId, apiKeyId });
    },

    async recordAttempt(
      a: Pick<AttemptDoc, "deliveryId" | "apiKeyId" | "type" | "subjectId" | "url" | "attempt">,
      r: SendResult,
    ): Promise<void> {
      await attempts.insertOne({
        _id: new ObjectId(),
        ...a,
        delivered: r.delivered,
        statusCode: r.statusCode,
        durationMs: r.durationMs,
        error: r.error,
        response: r.response,
        createdAt: new Date(),
      });
    },

    /** Newest first; `subjectId` narrows to one order or payment. */
    async listAttempts(apiKeyId: string, subjectId: string | undefined, limit: number) {
      const docs = await attempts
        .find({ apiKeyId, ...(subjectId ? { subjectId } : {}) })
        .sort({ createdAt: -1, _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map(
        ({ _id, apiKeyId: _k, createdAt, ...rest }): DeliveryAttemptDto => ({
          id: _id.toHexString(),
          ...rest,
          createdAt: createdAt.toISOString(),
        }),
      );
    },
  };
}
export type DeliveriesStore = ReturnType<typeof createDeliveriesStore>;
