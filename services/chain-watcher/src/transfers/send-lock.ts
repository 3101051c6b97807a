import { randomUUID } from "node:crypto";
import type { Chain } from "@ramp/contracts";
import type { Claims } from "@ramp/runtime";

/** Longer than any prepare → store → broadcast; a crashed holder's lease simply runs out. */
const LEASE_MS = 30_000;
const RETRY_MS = 100;

/**
 * Serialises prepare → store → broadcast per chain, in this process and across instances (a lease in
 * Mongo). Treasury nonces are taken from the chain's pending count, which is only correct if nobody
 * else signs between our read of it and our broadcast.
 */
/** Runs `fn` holding the chain's treasury lock. */
export type SendLock = <T>(chain: Chain, fn: () => Promise<T>) => Promise<T>;

export function createSendLock(claims: Claims): SendLock {
  const owner = randomUUID();
  const local = new Map<Chain, Promise<unknown>>();
  const key = (chain: Chain) => `send:${chain}`;

  async function acquire(chain: Chain): Promise<void> {
    while (!(await claims.claim(key(chain), owner, LEASE_MS))) {
      await new Promise((r) => setTimeout(r, RETRY_MS));
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
          await claims.release(key(chain), owner).catch(() => undefined);
        }
      });
    local.set(chain, run);
    return run;
  };
}
