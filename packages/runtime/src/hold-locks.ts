import { createHash } from "node:crypto";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { LeaseBucketContract } from "@ramp/contracts";
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
  /** Extends `owner`'s lease; does nothing once it was lost. */
  renew(lock: string, owner: string): Promise<void>;
  /** Gives `lock` back if `owner` still holds it. */
  release(lock: string, owner: string): Promise<void>;
  /** Whether anyone holds `lock` now: what a waiter polls, so it does not retry a take that would fail. */
  held(lock: string): Promise<boolean>;
}

/** Seen by the server as a key: KV keys allow few characters, and an idempotency key may hold any. */
const keyOf = (lock: string) => createHash("sha256").update(lock).digest("hex").slice(0, 40);

/** A KV create or update refused because the entry is not at the revision it named: another writer won. */
export const isWrongRevision = (err: unknown): boolean =>
  err instanceof JetStreamApiError &&
  (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
    err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

/**
 * Holds in a NATS KV bucket of the service's own (`HoldBuckets`), off the database: each hold costs the
 * database nothing, where a claim document costs an insert, a read and a delete. Taking is a `create`,
 * atomic on the server, so of two replicas exactly one gets it. Entries expire after the bucket's TTL,
 * so a holder that died frees its documents by itself, with no takeover to race for.
 */
export async function openKvHoldLocks(
  nc: NatsConnection,
  contract: LeaseBucketContract,
  opts: { replicas: number; log: Logger; leaseMs?: number },
): Promise<HoldLocks> {
  const leaseMs = opts.leaseMs ?? 15_000;
  const kv: KV = await retryJetStreamSetup(
    `hold bucket ${contract.bucket}`,
    () => new Kvm(nc).create(contract.bucket, { history: 1, ttl: leaseMs, replicas: opts.replicas }),
    { log: opts.log },
  );
  /** The revision this process wrote for each lock it holds, by `lock\nowner`. */
  const revisions = new Map<string, number>();
  const mine = (lock: string, owner: string) => `${lock}\n${owner}`;

  return {
    leaseMs,
    async take(lock, owner) {
      if (revisions.has(mine(lock, owner))) return true;
      try {
        revisions.set(mine(lock, owner), await kv.create(keyOf(lock), owner));
        return true;
      } catch (err) {
        // Held (the create found a live entry): anything else is an outage the caller must see.
        if (isWrongRevision(err)) return false;
        throw err;
      }
    },
    async renew(lock, owner) {
      const revision = revisions.get(mine(lock, owner));
      if (revision === undefined) return;
      try {
        revisions.set(mine(lock, owner), await kv.update(keyOf(lock), owner, revision));
      } catch (err) {
        // Lost: it lapsed and someone else took it. Their entry is left alone.
        if (!isWrongRevision(err)) throw err;
        revisions.delete(mine(lock, owner));
      }
    },
    async release(lock, owner) {
      const revision = revisions.get(mine(lock, owner));
      if (revision === undefined) return;
      revisions.delete(mine(lock, owner));
      // Only our own revision: a hold that lapsed and was taken meanwhile stays with its new holder.
      await kv.delete(keyOf(lock), { previousSeq: revision }).catch(() => undefined);
    },
    async held(lock) {
      const entry = await kv.get(keyOf(lock));
      return entry?.operation === "PUT";
    },
  };
}
