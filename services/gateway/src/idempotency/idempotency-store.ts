import { randomUUID } from "node:crypto";
import { type Claims, insertGrouped, type Logger } from "@ramp/runtime";
import type { Db, Filter } from "mongodb";
import type { WithheldSecrets } from "./secret-fields.ts";

/**
 * A final response as the first request answered it, replayed byte for byte; never with a secret in
 * it: those fields are kept empty (`withheld`) and filled again on replay.
 */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
  withheld?: WithheldSecrets;
}

/** Who runs a key now. Written whole when a key is claimed or taken over, never updated in between. */
interface IdempotencyDoc {
  _id: string; // `${businessId}:${key}`: a business id holds no ":", so the split is unambiguous
  /** This generation of the record: each claim or takeover writes a new one. */
  token: string;
  fingerprint: string;
  /** A generation still running past this instant belongs to a process that died; a repeat may take it over. */
  leaseUntil: Date;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * How a generation stopped running: answered (`done`, with the answer), given back (`released`), or
 * taken over by a repeat after its lease (`taken`). Only one of these exists per generation.
 */
type ExitKind = "done" | "released" | "taken";
interface ExitDoc {
  _id: string; // `${record _id}#${token}`
  kind: ExitKind;
  response: StoredResponse | null;
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

/** A record as read: the generation and, once it stopped running, how. */
interface Seen {
  record: IdempotencyDoc;
  exit: ExitDoc | null;
}

/**
 * Idempotency records in the gateway's own database. Every read and write on a request's way addresses
 * one document by `_id`, which FerretDB serves from its index (any other condition reads the whole
 * collection), and none is a read followed by a conditional write, which FerretDB does not apply
 * atomically:
 *
 * - a key is claimed by inserting its record on a unique `_id`;
 * - its holder ends its generation by inserting the generation's exit (`<record>#<token>`, with the
 *   answer when final), also on a unique `_id`. A repeat that takes a lapsed generation over inserts
 *   the same exit first, so of the holder and the repeats exactly one ends a generation, and a holder
 *   that lost it writes nothing anyone reads;
 * - only a takeover rewrites a record, while holding the record's write claim (`Claims.exclusive`), and
 *   only after reading again under it that the generation it saw is still the one stored.
 *
 * An answered request costs two inserts; a replay, a 409 or a 422 two reads by `_id`.
 */
export function createIdempotencyStore(
  db: Db,
  claims: Claims,
  opts: IdempotencyStoreOptions,
): IdempotencyStore {
  const records = db.collection<IdempotencyDoc>("idempotency_keys");
  const exits = db.collection<ExitDoc>("idempotency_exits");
  const recordId = (businessId: string, key: string) => `${businessId}:${key}`;
  const exitId = (_id: string, token: string) => `${_id}#${token}`;
  let purgeTimer: NodeJS.Timeout | undefined;

  const fresh = (token: string, fingerprint: string, now: Date) => ({
    token,
    fingerprint,
    leaseUntil: new Date(now.getTime() + opts.leaseMs),
    createdAt: now,
    expiresAt: new Date(now.getTime() + opts.ttlSeconds * 1000),
  });

  async function read(_id: string): Promise<Seen | null> {
    const record = await records.findOne({ _id });
    if (!record) return null;
    return { record, exit: await exits.findOne({ _id: exitId(_id, record.token) }) };
  }

  /** Ends a generation; false when it had already ended (answered, given back or taken over). */
  async function end(_id: string, token: string, kind: ExitKind, response: StoredResponse | null) {
    // The exit outlives the record it ends, so a record is never read without its exit.
    const expiresAt = new Date(Date.now() + opts.ttlSeconds * 1000);
    // With the other requests' exits ready at the same moment, in one command.
    return insertGrouped(exits, { _id: exitId(_id, token), kind, response, expiresAt });
  }

  /** Expired; or no longer running (given back, or taken by a repeat that died before rewriting it); or running past its lease. */
  const isStale = ({ record, exit }: Seen, now: Date) =>
    record.expiresAt <= now || (exit ? exit.kind !== "done" : record.leaseUntil <= now);

  async function takeOver(seen: Seen, token: string, fingerprint: string) {
    const { _id, token: staleToken } = seen.record;
    return claims.exclusive(`${records.collectionName}:${_id}`, async (alone) => {
      // Alone (FerretDB), nothing but another takeover rewrites the record, and none runs now: what is
      // read here is what gets replaced. Otherwise (MongoDB) the update's filter checks it atomically.
      const now = new Date();
      const current = alone ? await read(_id) : seen;
      if (!current || current.record.token !== staleToken || !isStale(current, now)) return false;
      if (!current.exit && !(await end(_id, staleToken, "taken", null))) return false;
      const r = await records.updateOne(
        (alone ? { _id } : { _id, token: staleToken }) as Filter<IdempotencyDoc>,
        { $set: fresh(token, fingerprint, now) },
      );
      return r.matchedCount === 1;
    });
  }

  /**
   * Where the database keeps no TTL index (FerretDB 1.x), expired records are deleted here instead.
   * FerretDB deletes what it matched by `_id` afterwards, so a record taken over in that instant can
   * go too; then a repeat may run beside it, and the owners' dedupe by key still makes its effect once.
   */
  async function purgeExpired() {
    const now = new Date();
    await records.deleteMany({ expiresAt: { $lte: now } });
    await exits.deleteMany({ expiresAt: { $lte: now } });
  }

  return {
    async init() {
      try {
        await records.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
        await exits.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
      } catch (err) {
        // FerretDB 1.24 answers "not implemented" to TTL indexes. Reads already treat an expired
        // record as absent; this loop only keeps the collections from growing.
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
        const token = randomUUID();
        if (await insertGrouped(records, { _id, ...fresh(token, fingerprint, new Date()) }))
          return { kind: "claimed", token };
        const seen = await read(_id);
        if (!seen) continue; // purged in between: claim again
        if (isStale(seen, new Date())) {
          if (await takeOver(seen, token, fingerprint)) return { kind: "claimed", token };
          continue;
        }
        if (seen.record.fingerprint !== fingerprint) return { kind: "mismatch" };
        if (seen.exit?.response) return { kind: "replay", response: seen.exit.response };
        return { kind: "in-progress" };
      }
      // Claimed, released and claimed again by others on every attempt: someone is running it.
      return { kind: "in-progress" };
    },

    async complete(businessId, key, token, response) {
      await end(recordId(businessId, key), token, "done", response);
    },

    async release(businessId, key, token) {
      // The record stays; a repeat finds its generation given back and takes it over.
      await end(recordId(businessId, key), token, "released", null);
    },

    async stop() {
      if (purgeTimer) clearInterval(purgeTimer);
    },
  };
}
