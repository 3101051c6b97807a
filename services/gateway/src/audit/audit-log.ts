import {
  AUDIT_CSV_FIELDS,
  type AuditActor,
  type AuditEntryDto,
  type AuditFilter,
  type AuditQuery,
} from "@ramp/contracts";
import { isDuplicateKey, pageById } from "@ramp/runtime";
import { type Collection, type Db, type Filter, ObjectId } from "mongodb";
import pRetry from "p-retry";
import { csvRow } from "../csv.ts";

/** Append-only: this module has no update or delete, and nothing else writes the collection. */
export interface AuditDoc {
  _id: ObjectId;
  at: Date;
  actor: AuditActor;
  action: string;
  target: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  requestId: string;
  /** The business the write concerns, so its members see it; null for platform-wide writes. */
  businessId: string | null;
}

/** What a handler tells the audit entry of its write; everything else the middleware knows. */
export interface AuditNote {
  target: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  /** The business the write concerns when it is not the actor's own (an operator adding a member). */
  businessId?: string | null;
}

export type NewAuditEntry = Omit<AuditDoc, "_id" | "at">;

/** How `append` tries again: `retries` more tries, waits doubling from `minTimeout` ms. */
export interface AppendRetry {
  retries: number;
  minTimeout: number;
}
export const APPEND_RETRY: AppendRetry = { retries: 5, minTimeout: 100 };

/** Whose entries a reader sees: a member's business only; an operator's every entry. */
export interface AuditScope {
  businessId?: string;
}

export interface AuditLog {
  init(): Promise<void>;
  /**
   * Stores the entry, trying again over about 3 s (`retry`) before giving up: the write it records has
   * already happened, so a passing database hiccup must not lose its entry.
   */
  append(entry: NewAuditEntry, retry?: AppendRetry): Promise<void>;
  page(scope: AuditScope, query: AuditQuery): Promise<{ data: AuditEntryDto[]; nextCursor: string }>;
  /** Every matching entry as CSV rows, newest first, read a batch at a time. */
  csv(scope: AuditScope, filter: AuditFilter): ReadableStream<Uint8Array>;
}

const toDto = (d: AuditDoc): AuditEntryDto => ({
  id: d._id.toHexString(),
  at: d.at.toISOString(),
  actor: d.actor,
  action: d.action,
  target: d.target,
  ...(d.before ? { before: d.before } : {}),
  ...(d.after ? { after: d.after } : {}),
  requestId: d.requestId,
});

/**
 * The filter, with the time range also as an `_id` range (ObjectIds begin with their second), so a
 * page stays one index range in a log of millions of entries.
 */
function filterOf(scope: AuditScope, f: AuditFilter): Filter<AuditDoc> {
  const and: Filter<AuditDoc>[] = [];
  if (scope.businessId !== undefined) and.push({ businessId: scope.businessId });
  if (f.actor !== undefined) {
    if (f.actor === "admin-token") and.push({ "actor.kind": "admin-token" });
    else if (/^[0-9a-f]{24}$/.test(f.actor)) and.push({ "actor.id": f.actor });
    else and.push({ "actor.email": f.actor.trim().toLowerCase() });
  }
  if (f.action !== undefined) and.push({ action: f.action });
  if (f.from !== undefined) {
    const from = new Date(f.from);
    and.push(
      { _id: { $gte: ObjectId.createFromTime(Math.floor(from.getTime() / 1000)) } },
      { at: { $gte: from } },
    );
  }
  if (f.to !== undefined) {
    const to = new Date(f.to);
    and.push(
      { _id: { $lt: ObjectId.createFromTime(Math.ceil(to.getTime() / 1000) + 1) } },
      { at: { $lt: to } },
    );
  }
  return and.length ? { $and: and } : {};
}

const csvOf = (d: AuditDoc) =>
  csvRow([
    d._id.toHexString(),
    d.at.toISOString(),
    d.actor.kind,
    d.actor.id ?? "",
    d.actor.email ?? "",
    d.action,
    d.target,
    d.before ? JSON.stringify(d.before) : "",
    d.after ? JSON.stringify(d.after) : "",
    d.requestId,
  ]);

export function createAuditLog(db: Db): AuditLog {
  const entries: Collection<AuditDoc> = db.collection("audit");
  return {
    async init() {
      await entries.createIndex({ businessId: 1, _id: -1 });
      await entries.createIndex({ "actor.id": 1, _id: -1 });
      await entries.createIndex({ action: 1, _id: -1 });
    },

    async append(entry, retry = APPEND_RETRY) {
      // One id for every try: a try whose answer was lost but which was stored is not stored twice.
      const doc = { _id: new ObjectId(), at: new Date(), ...entry };
      await pRetry(
        async () => {
          try {
            await entries.insertOne(doc);
          } catch (err) {
            if (!isDuplicateKey(err)) throw err;
          }
        },
        { ...retry, randomize: true },
      );
    },

    page: (scope, { limit, cursor, ...filter }) =>
      pageById(entries, filterOf(scope, filter), { limit, cursor }, toDto),

    csv(scope, filter) {
      const cursor = entries.find(filterOf(scope, filter)).sort({ _id: -1 }).batchSize(500);
      const encoder = new TextEncoder();
      let headerSent = false;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!headerSent) {
            headerSent = true;
            controller.enqueue(encoder.encode(csvRow(AUDIT_CSV_FIELDS)));
            return;
          }
          const doc = await cursor.next();
          if (doc) controller.enqueue(encoder.encode(csvOf(doc)));
          else {
            await cursor.close();
            controller.close();
          }
        },
        async cancel() {
          await cursor.close();
        },
      });
    },
  };
}
