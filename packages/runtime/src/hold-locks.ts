import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { LeaseBucketContract } from "@ramp/contracts";
import { sha256Hex } from "./digest.ts";
import { retryJetStreamSetup } from "./jetstream-setup.ts";
import type { Logger } from "./logger.ts";

/**
 * Where a document's write hold (`Claims.exclusive`) lives: a lock with a lease, one holder at a time.
 * Its lease is fixed by the implementation (`leaseMs`); a holder renews it while it writes.
 */
export interface HoldLocks {
  readonly leaseMs: number;
  /** True when `owner` now holds `lock`; false while someone else does. */
  take(lock: string, owner: string): Promise<boolean>;
  /** Extends `owner`'s lease; false (and nothing done) once it was lost. */
  renew(lock: string, owner: string): Promise<boolean>;
  /** Gives `lock` back if `owner` still holds it. */
  release(lock: string, owner: string): Promise<void>;
  /** Whether anyone holds `lock` now: what a waiter polls, so it does not retry a take that would fail. */
  held(lock: string): Promise<boolean>;
}

/** Seen by the server as a key: KV keys allow few characters, and an idempotency key may hold any. */
const hashedKey = (lock: string) => sha256Hex(lock).slice(0, 40);

/** A KV create or update refused because the entry is not at the revision it named: another writer won. */
export const isWrongRevision = (err: unknown): boolean =>
  err instanceof JetStreamApiError &&
  (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
    err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

/**
 * A KV write at the revision the writer last saw: `create` when that is 0 (no entry), else `update`.
 * Atomic on the server, so of two writers racing from one revision exactly one gets the new revision;
 * the other gets null. What every KV lock and compare-and-set state of the services is built on.
 */
export async function compareAndSet(
  kv: KV,
  key: string,
  value: string,
  revision: number,
): Promise<number | null> {
  try {
    return revision === 0 ? await kv.create(key, value) : await kv.update(key, value, revision);
  } catch (err) {
    if (isWrongRevision(err)) return null;
    throw err;
  }
}

/**
 * The one KV lock: a `lock` is held by whoever `create`d its entry; the holder keeps it by `update`s at
 * the revision it wrote, and gives it back by deleting only that revision. Entries expire after the
 * bucket's TTL (`leaseMs`), so a holder that died frees its locks by themselves, with no takeover to race
 * for. `keyOf` maps a lock name to a KV key (default: a hash, since a lock may name anything).
 */
export function kvLocks(kv: KV, leaseMs: number, keyOf: (lock: string) => string = hashedKey): HoldLocks {
  /** The revision this process wrote for each lock it holds, by `lock\nowner`. */
  const revisions = new Map<string, number>();
  const mine = (lock: string, owner: string) => `${lock}\n${owner}`;
  return {
    leaseMs,
    async take(lock, owner) {
      if (revisions.has(mine(lock, owner))) return true;
      const revision = await compareAndSet(kv, keyOf(lock), owner, 0);
      if (revision === null) return false;
      revisions.set(mine(lock, owner), revision);
      return true;
    },
    async renew(lock, owner) {
      const revision = revisions.get(mine(lock, owner));
      if (revision === undefined) return false;
      const next = await compareAndSet(kv, keyOf(lock), owner, revision);
      // Lost: it lapsed and someone else took it. Their entry is left alone.
      if (next === null) revisions.delete(mine(lock, owner));
      else revisions.set(mine(lock, owner), next);
      return next !== null;
    },
    async release(lock, owner) {
      const revision = revisions.get(mine(lock, owner));
      if (revision === undefined) return;
      revisions.delete(mine(lock, owner));
      // Only our own revision: a lock that lapsed and was taken meanwhile stays with its new holder.
      await kv.delete(keyOf(lock), { previousSeq: revision }).catch(() => undefined);
    },
    async held(lock) {
      const entry = await kv.get(keyOf(lock));
      return entry?.operation === "PUT";
    },
  };
}

/** A lock bucket of the service's own (`LeaseBucketContract`), entries expiring after `leaseMs`. */
export function openLockBucket(
  nc: NatsConnection,
  contract: LeaseBucketContract,
  opts: { replicas: number; log: Logger; leaseMs: number },
): Promise<KV> {
  return retryJetStreamSetup(
    `lock bucket ${contract.bucket}`,
    () => new Kvm(nc).create(contract.bucket, { history: 1, ttl: opts.leaseMs, replicas: opts.replicas }),
    { log: opts.log },
  );
}

/**
 * Holds in a NATS KV bucket of the service's own (`HoldBuckets`), off the database: each hold costs the
 * database nothing, where a claim document costs an insert, a read and a delete. Taking is a `create`,
 * atomic on the server, so of two replicas exactly one gets it.
 */
export async function openKvHoldLocks(
  nc: NatsConnection,
  contract: LeaseBucketContract,
  opts: { replicas: number; log: Logger; leaseMs?: number },
): Promise<HoldLocks> {
  const leaseMs = opts.leaseMs ?? 15_000;
  return kvLocks(await openLockBucket(nc, contract, { ...opts, leaseMs }), leaseMs);
}
