import { createHash, randomUUID } from "node:crypto";
import type { DeliveryAttemptDto, WebhookType } from "@ramp/contracts";
import { isDuplicateKey } from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
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
  /** Serialised once; every attempt sends (and signs) exactly these bytes. */
  body: string;
  status: DeliveryStatus;
  attemptsMade: number;
  nextAttemptAt: Date;
  /** Epoch when free; a claimant owns the delivery until then, so a crash only delays it. */
  leaseUntil: Date;
  leaseOwner: string | null;
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

const FREE = new Date(0);
export const deliveryIdOf = (key: string) => createHash("sha256").update(key).digest("hex").slice(0, 24);

export function createDeliveriesStore(db: Db) {
  const deliveries = db.collection<DeliveryDoc>("deliveries");
  const attempts = db.collection<AttemptDoc>("attempts");
  const owner = randomUUID();

  return {
    owner,
    async ensureIndexes(): Promise<void> {
      await deliveries.createIndex({ key: 1 }, { unique: true });
      await deliveries.createIndex({ status: 1, nextAttemptAt: 1 });
      await deliveries.createIndex({ subjectId: 1, url: 1, sequence: 1 });
      await attempts.createIndex({ apiKeyId: 1, createdAt: -1 });
      await attempts.createIndex({ apiKeyId: 1, subjectId: 1, createdAt: -1 });
    },

    /** Idempotent: the same event stored twice is one delivery. */
    async add(d: NewDelivery, firstDelayMs: number): Promise<boolean> {
      const now = new Date();
      try {
        await deliveries.insertOne({
          _id: deliveryIdOf(d.key),
          ...d,
          status: "pending",
          attemptsMade: 0,
          nextAttemptAt: new Date(now.getTime() + firstDelayMs),
          leaseUntil: FREE,
          leaseOwner: null,
          lastError: null,
          createdAt: now,
          updatedAt: now,
        });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /** Takes one due delivery for this instance; the conditional update is the lock. */
    async claim(leaseMs: number): Promise<DeliveryDoc | null> {
      const now = new Date();
      return deliveries.findOneAndUpdate(
        { status: "pending", nextAttemptAt: { $lte: now }, leaseUntil: { $lte: now } },
        { $set: { leaseUntil: new Date(now.getTime() + leaseMs), leaseOwner: owner, updatedAt: now } },
        { sort: { nextAttemptAt: 1 }, returnDocument: "after" },
      );
    },

    /** Hands a claimed delivery back untouched, to be looked at again after `delayMs`. */
    async release(d: DeliveryDoc, delayMs: number): Promise<void> {
      const at = new Date(Date.now() + delayMs);
      await deliveries.updateOne(
        { _id: d._id, leaseOwner: owner },
        { $set: { leaseUntil: FREE, leaseOwner: null, nextAttemptAt: at, updatedAt: new Date() } },
      );
    },

    async finish(
      d: DeliveryDoc,
      status: DeliveryStatus,
      attemptsMade: number,
      nextAttemptAt: Date,
      lastError: string | null,
    ): Promise<void> {
      // Conditional on the lease: an instance that lost it (stalled past the lease) must not
      // overwrite what the new owner recorded.
      await deliveries.updateOne(
        { _id: d._id, leaseOwner: owner },
        {
          $set: { status, attemptsMade, nextAttemptAt, lastError, leaseUntil: FREE, leaseOwner: null },
          $currentDate: { updatedAt: true },
        },
      );
    },

    /** A newer status already reached this URL: sending this one would move the receiver backwards. */
    async newerDelivered(d: DeliveryDoc): Promise<boolean> {
      const hit = await deliveries.findOne(
        { subjectId: d.subjectId, url: d.url, sequence: { $gt: d.sequence }, status: "delivered" },
        { projection: { _id: 1 } },
      );
      return hit !== null;
    },

    /**
     * Whether this delivery must wait: another one for the same order and URL is in flight (one at a
     * time keeps the stale check above race-free), an older one has not had its first try yet, or,
     * briefly after arrival, no older one is stored at all (statuses published back to back can be
     * stored out of order by the parallel consumer).
     */
    async mustWait(d: DeliveryDoc, graceMs: number): Promise<boolean> {
      const now = new Date();
      const same = { subjectId: d.subjectId, url: d.url, _id: { $ne: d._id } };
      const blocking = await deliveries.findOne(
        {
          ...same,
          status: "pending",
          $or: [{ leaseUntil: { $gt: now } }, { sequence: { $lt: d.sequence }, attemptsMade: 0 }],
        },
        { projection: { _id: 1 } },
      );
      if (blocking) return true;
      if (d.type !== "RAMP" || d.sequence === 0 || now.getTime() - d.createdAt.getTime() >= graceMs)
        return false;
      const older = await deliveries.findOne(
        { ...same, sequence: { $lt: d.sequence } },
        { projection: { _id: 1 } },
      );
      return older === null;
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

    async markDelivered(d: DeliveryDoc, attemptsMade: number): Promise<void> {
      await deliveries.updateOne(
        { _id: d._id },
        { $set: { status: "delivered", attemptsMade, lastError: null }, $currentDate: { updatedAt: true } },
      );
    },
  };
}
export type DeliveriesStore = ReturnType<typeof createDeliveriesStore>;
