import { randomUUID } from "node:crypto";
import type { Chain } from "@ramp/contracts";
import { isDuplicateKey } from "@ramp/runtime";
import type { Db } from "mongodb";

interface LockDoc {
  _id: Chain;
  owner: string;
  until: Date;
}

/** Longer than any prepare → store → broadcast; a crashed holder's lease simply runs out. */
const LEASE_MS = 30_000;
const RETRY_MS = 100;

/**
 * Serialises prepare → store → broadcast per chain, in this process and across instances (a lease in
 * Mongo). Treasury nonces are taken from the chain's pending count, which is only correct if nobody
 * else signs between our read of it and our broadcast.
 */
export function createSendLock(db: Db) {
  const locks = db.collection<LockDoc>("send_locks");
  const owner = randomUUID();
  const local = new Map<Chain, Promise<unknown>>();

  async function acquire(chain: Chain): Promise<void> {
    for (;;) {
      const now = new Date();
      try {
        await locks.updateOne(
          { _id: chain, $or: [{ until: { $lt: now } }, { owner }] },
          { $set: { owner, until: new Date(now.getTime() + LEASE_MS) } },
          { upsert: true },
        );
        return;
      } catch (err) {
        // The filter missed because someone else holds a live lease, so the upsert collided.
        if (!isDuplicateKey(err)) throw err;
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  return async function withSendLock<T>(chain: Chain, fn: () => Promise<T>): Promise<T> {
    const previous = local.get(chain) ?? Promise.resolve();
    // The previous holder's failure was already reported to its own caller; only its turn matters here.
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        await acquire(chain);
        try {
          return await fn();
        } finally {
          // A release that fails is not an error for the sender: the lease simply runs out.
          await locks.deleteOne({ _id: chain, owner }).catch(() => undefined);
        }
      });
    local.set(chain, run);
    return run;
  };
}
export type SendLock = ReturnType<typeof createSendLock>;
