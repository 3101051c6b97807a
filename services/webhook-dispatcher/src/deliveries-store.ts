import { createHash } from "node:crypto";
import type { ConsoleDeliveryPage, DeliveryAttemptDto } from "@ramp/contracts";
import { pageById } from "@ramp/runtime";
import type { Db, ObjectId } from "mongodb";

/**
 * One attempt as the delivery log keeps it. It carries the body it sent, so a manual redelivery
 * needs nothing but the log: the pending deliveries themselves live in the JetStream work queue.
 */
export interface AttemptDoc extends Omit<DeliveryAttemptDto, "id" | "createdAt"> {
  _id: ObjectId;
  apiKeyId: string | null;
  body: string;
  createdAt: Date;
}

/** Derived from the event, so a redelivered or re-published event maps onto the same delivery. */
export const deliveryIdOf = (key: string) => createHash("sha256").update(key).digest("hex").slice(0, 24);

export interface DeliveriesStore {
  ensureIndexes(): Promise<void>;
  /** One database write for the whole batch. */
  insertAttempts(docs: AttemptDoc[]): Promise<void>;
  /** Newest first; `subjectId` narrows to one order or payment. */
  listAttempts(apiKeyId: string, subjectId: string | undefined, limit: number): Promise<DeliveryAttemptDto[]>;
  /** The console's page: several keys, by outcome, newest first by `_id` after `cursor`. */
  pageAttempts(q: {
    apiKeyIds?: string[];
    subjectId?: string;
    deliveryId?: string;
    delivered?: boolean;
    limit: number;
    cursor?: string;
  }): Promise<ConsoleDeliveryPage>;
  /** The delivery's newest attempt: what a redelivery re-sends and numbers after. */
  lastAttempt(apiKeyId: string, deliveryId: string): Promise<AttemptDoc | null>;
}

export function createDeliveriesStore(db: Db): DeliveriesStore {
  const attempts = db.collection<AttemptDoc>("attempts");

  return {
    async ensureIndexes() {
      await attempts.createIndex({ apiKeyId: 1, createdAt: -1 });
      await attempts.createIndex({ apiKeyId: 1, subjectId: 1, createdAt: -1 });
      await attempts.createIndex({ deliveryId: 1, attempt: -1 });
      await attempts.createIndex({ apiKeyId: 1, _id: -1 });
    },

    async insertAttempts(docs) {
      if (docs.length > 0) await attempts.insertMany(docs, { ordered: false });
    },

    async listAttempts(apiKeyId, subjectId, limit) {
      const docs = await attempts
        .find({ apiKeyId, ...(subjectId ? { subjectId } : {}) }, { projection: { body: 0 } })
        .sort({ createdAt: -1, _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map(
        ({ _id, apiKeyId: _k, body: _b, createdAt, ...rest }): DeliveryAttemptDto => ({
          id: _id.toHexString(),
          ...rest,
          createdAt: createdAt.toISOString(),
        }),
      );
    },

    pageAttempts: ({ apiKeyIds, subjectId, deliveryId, delivered, limit, cursor }) =>
      pageById(
        attempts,
        {
          ...(apiKeyIds ? { apiKeyId: { $in: apiKeyIds } } : {}),
          ...(subjectId ? { subjectId } : {}),
          ...(deliveryId ? { deliveryId } : {}),
          ...(delivered === undefined ? {} : { delivered }),
        },
        { limit, cursor },
        ({ _id, apiKeyId, body: _b, createdAt, ...rest }) => ({
          id: _id.toHexString(),
          keyId: apiKeyId ?? "",
          ...rest,
          createdAt: createdAt.toISOString(),
        }),
      ),

    async lastAttempt(apiKeyId, deliveryId) {
      return attempts.findOne({ deliveryId, apiKeyId }, { sort: { attempt: -1, createdAt: -1 } });
    },
  };
}
