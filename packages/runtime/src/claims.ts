import type { NatsConnection } from "@nats-io/transport-node";
import type { LeaseBucketContract } from "@ramp/contracts";
import type { Db } from "mongodb";
import { type HoldLocks, openKvHoldLocks } from "./hold-locks.ts";
import type { Logger } from "./logger.ts";
import { isDuplicateKey } from "./mongo.ts";
import { createWriteQueue } from "./write-queue.ts";

/**
 * The one claim mechanism of every service: an insert on a unique `_id`.
 *
 * A conditional update (`findOneAndUpdate({_id, status: FROM}, …)`) is atomic on MongoDB but not on
 * FerretDB, where several racing updates can all "win" the same condition (measured: 5 of 20). An
 * insert on a unique key is atomic on both, so everything that must happen once — leaving a state,
 * holding a lane or a treasury nonce — is decided by who inserted the claim.
 *
 * A claim is held by an `owner` string. Claiming again with the same owner succeeds, so a process that
 * crashed after claiming finishes its own work when the message is redelivered, while any other owner
 * loses. A claim with a lease (`leaseMs`) is a lock: once the lease has run out, another owner takes it
 * over (the holder died or paused); a claim without a lease is forever.
 */
export interface ClaimDoc {
  _id: string;
  owner: string;
  at: Date;
  /** End of the lease; null for a claim that never lapses. */
  until: Date | null;
}

export interface Claims {
  /** True when `owner` now holds `key`, whether it just took it or already held it. */
  claim(key: string, owner: string, leaseMs?: number): Promise<boolean>;
  /** Who holds `key` (expired leases included), or null. */
  holder(key: string): Promise<string | null>;
  /** Gives a leased claim back early; a claim held by someone else is left alone. */
  release(key: string, owner: string): Promise<void>;
  /**
   * Runs `write` while no other process runs a write under the same key (a document's id).
   *
   * FerretDB applies an update by reading the whole document and writing it all back, outside any
   * lock, so two processes updating one document at once can undo each other (measured: an order's
   * state change overwritten by another replica removing the previous change's outbox entries, the
   * order left a state behind). There the write holds a leased claim on the key, waiting for it if
   * another process has it. MongoDB applies each update atomically, so there `write` just runs.
   * `write` is told whether it runs alone (its conditions on the document need not be in its filters).
   * Writes of one key in one process run one after another. With `keep`, a hold outlives its write
   * briefly, so this process's write that follows at once (the removal of the events a change just
   * published) takes no claim of its own; another process waits that much longer for it.
   */
  exclusive<T>(key: string, write: (alone: boolean) => Promise<T>, opts?: { keep?: boolean }): Promise<T>;
}

/** How long a takeover ticket for a lapsed claim without a lease of its own stands. */
const TAKEOVER_ROUND_MS = 15_000;
/** A holder renews its lease every third of this while it writes; one that died frees it after this. */
const EXCLUSIVE_LEASE_MS = 15_000;
/** A write waiting longer than this fails, and its message is redelivered later. */
const EXCLUSIVE_WAIT_MS = 40_000;
/** Renewal stops after this, so a write that hangs cannot hold a document for ever. */
const EXCLUSIVE_HOLD_MS = 60_000;
/**
 * How long a hold is kept after its write for this process's next write of the same document: every
 * take and release of a hold is a request of its own, two for each write guarded. Long enough for the
 * publish between a change and the removal of its events, which waits `REMOVAL_LINGER_MS` after it
 * (outbox-removals.ts); another process waits at most this much more.
 */
const EXCLUSIVE_LINGER_MS = 150;
/** A hold serves this process's writes for no longer than this before it is given back for others. */
const EXCLUSIVE_REUSE_MS = 1_000;
let exclusiveOwners = 0;
const processToken = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

/** Whether the server rewrites whole documents on update (FerretDB says so in buildInfo). */
async function rewritesWholeDocuments(db: Db): Promise<boolean> {
  try {
    const info = await db.admin().command({ buildInfo: 1 });
    return "ferretdbVersion" in info;
  } catch {
    return true;
  }
}

export interface ClaimsOptions {
  collection?: string;
  /**
   * Where `exclusive` keeps its holds. Without it, in the claims collection: three more database
   * operations for each write guarded (an insert, a read and a delete). Services pass their NATS KV
   * hold bucket (`openKvHoldLocks`).
   */
  holds?: HoldLocks;
}

export function createClaims(db: Db, opts: ClaimsOptions = {}): Claims {
  const col = db.collection<ClaimDoc>(opts.collection ?? "claims");

  async function tryInsert(key: string, owner: string, leaseMs: number | undefined): Promise<boolean> {
    const now = Date.now();
    try {
      await col.insertOne({
        _id: key,
        owner,
        at: new Date(now),
        until: leaseMs === undefined ? null : new Date(now + leaseMs),
      });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** Held write claims of this process, by key, kept for `EXCLUSIVE_LINGER_MS` after each write. */
  const holds = new Map<
    string,
    {
      lock: string;
      owner: string;
      since: number;
      stop: () => void;
      renew: NodeJS.Timeout;
      renewed: () => Promise<unknown>;
    }
  >();
  const inProcess = createWriteQueue();

  let rewriting: Promise<boolean> | undefined;
  const rewrites = () => {
    rewriting ??= rewritesWholeDocuments(db);
    return rewriting;
  };

  /**
   * Runs `op` on the claim if `owner` holds it. MongoDB checks the owner in the filter, atomically.
   * FerretDB uses the _id index only for a filter on _id alone (any other condition scans the whole
   * collection, which grows with every claim) and applies no filter atomically anyway, so there the
   * owner is checked by reading first.
   */
  async function whenHeldBy(
    key: string,
    owner: string,
    op: (filter: { _id: string; owner?: string }) => Promise<unknown>,
  ) {
    if (!(await rewrites())) return void (await op({ _id: key, owner }));
    if ((await col.findOne({ _id: key }))?.owner === owner) await op({ _id: key });
  }

  const claims: Claims = {
    async claim(key, owner, leaseMs) {
      if (await tryInsert(key, owner, leaseMs)) return true;
      const held = await col.findOne({ _id: key });
      if (!held) return tryInsert(key, owner, leaseMs);
      if (held.owner === owner) {
        if (leaseMs !== undefined) {
          const until = new Date(Date.now() + leaseMs);
          await whenHeldBy(key, owner, (filter) => col.updateOne(filter, { $set: { until } }));
        }
        return true;
      }
      if (held.until === null || held.until.getTime() > Date.now()) return false;
      // A lapsed lease: remove exactly that stale claim (by its owner), then race for the key like anyone.
      if (await rewrites()) {
        // Reading and then deleting is not atomic there: two contenders that both saw the lease lapse
        // could each delete the claim the other had just inserted, and both would hold the key (seen:
        // two replicas signing with one treasury nonce after a kill). So one contender only removes a
        // given stale claim: the one whose ticket for it inserts first. If that one dies on the way,
        // the next lease period opens a new round of tickets.
        const lapsedFor = Date.now() - held.until.getTime();
        const round = Math.floor(lapsedFor / (leaseMs ?? TAKEOVER_ROUND_MS));
        const ticket = `takeover:${key}:${held.owner}:${held.until.getTime()}:${round}`;
        if (!(await tryInsert(ticket, owner, leaseMs ?? TAKEOVER_ROUND_MS))) return false;
        const now = await col.findOne({ _id: key });
        if (now?.owner !== held.owner || now.until?.getTime() !== held.until.getTime()) return false;
        await col.deleteOne({ _id: key });
        return tryInsert(key, owner, leaseMs);
      }
      await whenHeldBy(key, held.owner, (filter) => col.deleteOne(filter));
      return tryInsert(key, owner, leaseMs);
    },
    async holder(key) {
      return (await col.findOne({ _id: key }))?.owner ?? null;
    },
    async release(key, owner) {
      await whenHeldBy(key, owner, (filter) => col.deleteOne(filter));
    },
    async exclusive(key, write, opts) {
      if (!(await rewrites())) return write(false);
      return inProcess(key, async () => {
        let hold = holds.get(key);
        if (hold) {
          hold.stop();
          if (Date.now() - hold.since > EXCLUSIVE_REUSE_MS) {
            await letGo(key);
            hold = undefined;
          }
        }
        hold ??= await acquire(key);
        try {
          return await write(true);
        } finally {
          // Given back through the queue, so a write queued meanwhile finds it still held and reuses it.
          const linger = setTimeout(
            () => void inProcess(key, () => letGo(key)),
            opts?.keep ? EXCLUSIVE_LINGER_MS : 0,
          );
          hold.stop = () => clearTimeout(linger);
        }
      });
    },
  };

  /** Holds as claim documents: the default, and what a database-only caller (a test, a script) has. */
  const claimHolds: HoldLocks = {
    leaseMs: EXCLUSIVE_LEASE_MS,
    take: (lock, owner) => claims.claim(lock, owner, EXCLUSIVE_LEASE_MS),
    renew: (lock, owner) => claims.claim(lock, owner, EXCLUSIVE_LEASE_MS),
    release: (lock, owner) => claims.release(lock, owner),
    held: async (lock) => ((await col.findOne({ _id: lock }))?.until?.getTime() ?? 0) > Date.now(),
  };
  const locks = opts.holds ?? claimHolds;

  /** Waits for the write hold of `key` and keeps its lease renewed until it is let go. */
  async function acquire(key: string) {
    const lock = `write:${key}`;
    const owner = `${processToken}-${++exclusiveOwners}`;
    const deadline = Date.now() + EXCLUSIVE_WAIT_MS;
    let wait = 2;
    while (!(await locks.take(lock, owner))) {
      // Wait by reading, not by failed takes, which on the database would take its write lock each time.
      do {
        if (Date.now() > deadline)
          throw new Error(`${key} was being written by another process for too long`);
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, 50);
      } while (await locks.held(lock));
    }
    // A slow database must not let the lease lapse under a write still running.
    const holdUntil = Date.now() + EXCLUSIVE_HOLD_MS;
    let renewing: Promise<unknown> = Promise.resolve();
    const renew = setInterval(() => {
      if (Date.now() > holdUntil) return clearInterval(renew);
      renewing = locks.renew(lock, owner).catch(() => undefined);
    }, locks.leaseMs / 3);
    const hold = { lock, owner, since: Date.now(), stop: () => undefined, renew, renewed: () => renewing };
    holds.set(key, hold);
    return hold;
  }

  async function letGo(key: string) {
    const hold = holds.get(key);
    if (!hold) return;
    holds.delete(key);
    clearInterval(hold.renew);
    // A renewal still on its way would insert the claim again after the release: nobody would free it
    // and every other writer would wait out its lease.
    await hold.renewed();
    await locks.release(hold.lock, hold.owner).catch(() => undefined);
  }

  return claims;
}

/** A service's claims, its document holds in its own hold bucket: what every service that needs holds runs. */
export async function createServiceClaims(
  nc: NatsConnection,
  db: Db,
  contract: LeaseBucketContract,
  opts: { replicas: number; log: Logger },
): Promise<Claims> {
  // Holds in NATS KV, not in the database: three fewer database operations per guarded write.
  return createClaims(db, { holds: await openKvHoldLocks(nc, contract, opts) });
}
