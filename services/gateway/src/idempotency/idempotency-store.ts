import { randomUUID } from "node:crypto";
import { isDuplicateKey, type Logger } from "@ramp/runtime";
import type { Db } from "mongodb";

/** A final response as the first request answered it, replayed byte for byte. */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

interface IdempotencyDoc {
  _id: string; // `${businessId}:${key}`: a business id holds no ":", so the split is unambiguous
  /** Which claim holds the record; every write of a holder is conditional on it. */
  token: string;
  fingerprint: string;
  state: "running" | "done";
  /** A running record past this instant belongs to a process that died; a repeat may take it over. */
  leaseUntil: Date;
  response: StoredResponse | null;
  createdAt: Date;
  expiresAt: Date;
}

/** One taken-over generation of a record: whoever inserts it first is the only one to replace it. */
interface TakeoverDoc {
  _id: string; // `${record _id}#${the stale token}`
  expiresAt: Date;
}

export type ClaimOutcome =
  | { kind: "claimed"; token: string }
  | { kind: "replay"; response: StoredResponse }
  | { kind: "mismatch" }
  | { kind: "in-progress" };

export interface IdempotencyStore {
  init(): Promise<void>;
  /** The one way to start a request under a key: run it, replay it, or refuse it. */
  claim(businessId: string, key: string, fingerprint: string): Promise<ClaimOutcome>;
  /** Stores the final response of the claim holding `token`. */
  complete(businessId: string, key: string, token: string, response: StoredResponse): Promise<void>;
  /** Frees the key (a 5xx, 409 or 429 is not final): the next repeat runs again. */
  release(businessId: string, key: string, token: string): Promise<void>;
  stop(): Promise<void>;
}

export interface IdempotencyStoreOptions {
  ttlSeconds: number;
  leaseMs: number;
  log: Logger;
  /** How often expired records are purged where the database has no TTL indexes. */
  purgeIntervalMs?: number;
}

const CLAIM_ATTEMPTS = 5;

/**
 * How long a running record holds its key: the slowest gateway call waits 30 s for its reply, and a
 * minute more covers a slow store. Past it, the process that claimed the key is taken to be gone.
 */
export const IDEMPOTENCY_LEASE_MS = 90_000;

/**
 * Idempotency records in the gateway's own database. FerretDB's conditional updates are not atomic
 * under concurrency, so no decision here is a read followed by a write: a key is claimed by inserting
 * its record on a unique `_id`, and a stale record (expired, or running past its lease) is taken over
 * only by whoever first inserts a takeover marker for that record's token. Both inserts are atomic on
 * MongoDB and FerretDB alike, so two racing requests never both run.
 */
export function createIdempotencyStore(db: Db, opts: IdempotencyStoreOptions): IdempotencyStore {
  const records = db.collection<IdempotencyDoc>("idempotency_keys");
  const takeovers = db.collection<TakeoverDoc>("idempotency_takeovers");
  const recordId = (businessId: string, key: string) => `${businessId}:${key}`;
  let purgeTimer: NodeJS.Timeout | undefined;

  const fresh = (token: string, fingerprint: string, now: Date) => ({
    token,
    fingerprint,
    state: "running" as const,
    leaseUntil: new Date(now.getTime() + opts.leaseMs),
    response: null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + opts.ttlSeconds * 1000),
  });

  const isStale = (doc: IdempotencyDoc, now: Date) =>
    doc.expiresAt <= now || (doc.state === "running" && doc.leaseUntil <= now);

  async function takeOver(stale: IdempotencyDoc, token: string, fingerprint: string, now: Date) {
    try {
      const expiresAt = new Date(now.getTime() + opts.ttlSeconds * 1000);
      await takeovers.insertOne({ _id: `${stale._id}#${stale.token}`, expiresAt });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      return false;
    }
    const r = await records.updateOne(
      { _id: stale._id, token: stale.token },
      { $set: fresh(token, fingerprint, now) },
    );
    return r.matchedCount === 1;
  }

  /**
   * Where the database keeps no TTL index (FerretDB 1.x), expired records are deleted here instead.
   * FerretDB deletes what it matched by `_id` afterwards, so a record taken over in that instant can
   * go too; then a repeat may run beside it, and the owners' dedupe by key still makes its effect once.
   */
  async function purgeExpired() {
    const now = new Date();
    await records.deleteMany({ expiresAt: { $lte: now } });
    await takeovers.deleteMany({ expiresAt: { $lte: now } });
  }

  return {
    async init() {
      try {
        await records.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
        await takeovers.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
      } catch (err) {
        // FerretDB 1.24 answers "not implemented" to TTL indexes. Reads already treat an expired
        // record as absent; this loop only keeps the collection from growing.
        opts.log.info(
          { err: (err as Error).message },
          "no TTL indexes here; purging idempotency records on a timer",
        );
        await records.createIndex({ expiresAt: 1 });
        purgeTimer = setInterval(() => {
          purgeExpired().catch((e) => opts.log.warn({ err: e }, "idempotency purge failed"));
        }, opts.purgeIntervalMs ?? 60_000);
        purgeTimer.unref();
      }
    },

    async claim(businessId, key, fingerprint) {
      const _id = recordId(businessId, key);
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const now = new Date();
        const token = randomUUID();
        try {
          await records.insertOne({ _id, ...fresh(token, fingerprint, now) });
          return { kind: "claimed", token };
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
        const existing = await records.findOne({ _id });
        if (!existing) continue; // released or purged in between: claim again
        if (isStale(existing, now)) {
          if (await takeOver(existing, token, fingerprint, now)) return { kind: "claimed", token };
          continue;
        }
        if (existing.fingerprint !== fingerprint) return { kind: "mismatch" };
        if (existing.state === "done" && existing.response)
          return { kind: "replay", response: existing.response };
        return { kind: "in-progress" };
      }
      // Claimed, released and claimed again by others on every attempt: someone is running it.
      return { kind: "in-progress" };
    },

    async complete(businessId, key, token, response) {
      await records.updateOne(
        { _id: recordId(businessId, key), token },
        { $set: { state: "done", response } },
      );
    },

    async release(businessId, key, token) {
      await records.deleteOne({ _id: recordId(businessId, key), token });
    },

    async stop() {
      if (purgeTimer) clearInterval(purgeTimer);
    },
  };
}
