import type { ConsoleDeliveryPage, DeliveryAttemptDto } from "@ramp/contracts";
import {
  createTimeList,
  decodeListCursor,
  encodeListCursor,
  type ListMark,
  type ListPage,
  type ListPosition,
  type Logger,
  pageById,
  type Stoppable,
  sha256Hex,
} from "@ramp/runtime";
import type { Db, Filter, ObjectId, WithId } from "mongodb";

/**
 * One attempt as the delivery log keeps it. It carries the body it sent, so a manual redelivery
 * needs nothing but the log: the pending deliveries themselves live in the JetStream work queue.
 */
export interface AttemptDoc extends Omit<DeliveryAttemptDto, "id" | "createdAt"> {
  _id: ObjectId;
  apiKeyId: string | null;
  body: string;
  createdAt: Date;
  /** Its bucket in its key's delivery log (`createTimeList`); set when it is stored. */
  listKey?: string;
}

/** Derived from the event, so a redelivered or re-published event maps onto the same delivery. */
export const deliveryIdOf = (key: string) => sha256Hex(key).slice(0, 24);

export interface DeliveriesStore {
  ensureIndexes(): Promise<void>;
  /** Keys attempts logged before the log was listed by key (once per database; see `createTimeList`). */
  startBackfill(log: Logger): Stoppable;
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

type PageQuery = Parameters<DeliveriesStore["pageAttempts"]>[0];

const newestFirst = (a: AttemptDoc, b: AttemptDoc) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b._id.toHexString().localeCompare(a._id.toHexString());
const positionOf = (a: AttemptDoc): ListPosition => ({ at: a.createdAt, id: a._id });
const isBefore = (a: AttemptDoc, p: ListPosition) =>
  a.createdAt.getTime() < p.at.getTime() ||
  (a.createdAt.getTime() === p.at.getTime() && a._id.toHexString() < p.id.toHexString());

const attemptDto = ({ _id, apiKeyId: _k, body: _b, listKey: _l, createdAt, ...rest }: AttemptDoc) => ({
  id: _id.toHexString(),
  ...rest,
  createdAt: createdAt.toISOString(),
});
const consoleDto = ({ _id, apiKeyId, body: _b, listKey: _l, createdAt, ...rest }: WithId<AttemptDoc>) => ({
  id: _id.toHexString(),
  keyId: apiKeyId ?? "",
  ...rest,
  createdAt: createdAt.toISOString(),
});

/**
 * The delivery log. Its reads follow the page asked for, never the log's length, on FerretDB as on
 * MongoDB: a key's attempts newest first through its time list (one equality per minute that has
 * any), and one delivery's or one order's attempts by an equality on its id.
 */
export function createDeliveriesStore(db: Db): DeliveriesStore {
  const attempts = db.collection<AttemptDoc>("attempts");
  const list = createTimeList<AttemptDoc>({
    docs: attempts,
    marks: db.collection<ListMark>("attempt_list_marks"),
    at: (a) => a.createdAt,
    scopeOf: (a) => a.apiKeyId ?? "",
  });

  /** One delivery's or one order's attempts: few, so read whole and paged here. */
  async function pageOfOne(q: PageQuery, after: ListPosition | null): Promise<ListPage<AttemptDoc>> {
    const keys = q.apiKeyIds ? new Set(q.apiKeyIds) : undefined;
    const filter: Filter<AttemptDoc> = q.deliveryId
      ? { deliveryId: q.deliveryId }
      : { subjectId: q.subjectId };
    if (q.deliveryId && q.subjectId) filter.subjectId = q.subjectId;
    if (q.delivered !== undefined) filter.delivered = q.delivered;
    const all = (await attempts.find(filter).toArray())
      .filter((a) => (!keys || keys.has(a.apiKeyId ?? "")) && (!after || isBefore(a, after)))
      .sort(newestFirst);
    const docs = all.slice(0, q.limit);
    const last = docs.at(-1);
    return { docs, next: all.length > q.limit && last ? positionOf(last) : null };
  }

  const legacyPage = ({ apiKeyIds, subjectId, deliveryId, delivered, limit, cursor }: PageQuery) =>
    pageById(
      attempts,
      {
        ...(apiKeyIds ? { apiKeyId: { $in: apiKeyIds } } : {}),
        ...(subjectId ? { subjectId } : {}),
        ...(deliveryId ? { deliveryId } : {}),
        ...(delivered === undefined ? {} : { delivered }),
      },
      { limit, cursor },
      consoleDto,
    );

  return {
    async ensureIndexes() {
      await attempts.createIndex({ apiKeyId: 1, createdAt: -1 });
      await attempts.createIndex({ apiKeyId: 1, subjectId: 1, createdAt: -1 });
      await attempts.createIndex({ deliveryId: 1, attempt: -1 });
      await attempts.createIndex({ apiKeyId: 1, _id: -1 });
      // Leading with the order's id: on FerretDB only an index's leading field answers its equality.
      await attempts.createIndex({ subjectId: 1 });
      await list.init();
    },

    startBackfill(log) {
      let stopping = false;
      // Attempts are only ever inserted, so a key is set with a plain update.
      const done = list
        .backfill({
          log,
          stopping: () => stopping,
          setKey: (a, listKey) => attempts.updateOne({ _id: a._id }, { $set: { listKey } }),
        })
        .catch((err: unknown) => log.error({ err }, "keying the delivery log failed"));
      return {
        async stop() {
          stopping = true;
          await done;
        },
      };
    },

    async insertAttempts(docs) {
      if (docs.length > 0) await attempts.insertMany(await list.keyed(docs), { ordered: false });
    },

    async listAttempts(apiKeyId, subjectId, limit) {
      if (subjectId) {
        const page = await pageOfOne({ apiKeyIds: [apiKeyId], subjectId, limit }, null);
        return page.docs.map(attemptDto);
      }
      if (!list.ready()) {
        const docs = await attempts
          .find({ apiKeyId })
          .sort({ createdAt: -1, _id: -1 })
          .limit(limit)
          .toArray();
        return docs.map(attemptDto);
      }
      // The key is the list's scope: its leaf reads need no apiKeyId (whose index holds every attempt).
      return (await list.page(apiKeyId, {}, {}, null, limit)).docs.map(attemptDto);
    },

    async pageAttempts(q) {
      if (!list.ready() || (!q.apiKeyIds && !q.deliveryId && !q.subjectId)) return legacyPage(q);
      const after = q.cursor ? decodeListCursor(q.cursor) : null;
      const page =
        q.deliveryId || q.subjectId
          ? await pageOfOne(q, after)
          : await list.pageMany(
              q.apiKeyIds ?? [],
              q.delivered === undefined ? {} : { delivered: q.delivered },
              {},
              after,
              q.limit,
            );
      return { data: page.docs.map(consoleDto), nextCursor: page.next ? encodeListCursor(page.next) : "" };
    },

    async lastAttempt(apiKeyId, deliveryId) {
      return attempts.findOne({ deliveryId, apiKeyId }, { sort: { attempt: -1, createdAt: -1 } });
    },
  };
}
