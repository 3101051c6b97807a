import { randomUUID } from "node:crypto";
import type { Chain } from "@ramp/contracts";
import type { Claims } from "@ramp/runtime";

/**
 * A crashed holder's lease runs out after this (sends on its chain, and a step it left unsigned, wait
 * that long); a live one renews it every third of it. As long as runtime's exclusive document holds.
 */
const LEASE_MS = 15_000;
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
        // Renewed while held: a holder that outlived an unrenewed lease (a slow database, a document
        // write waiting for a dead replica's hold) would let another replica read the same pending
        // nonce and sign a second transaction with it. A holder that died stops renewing.
        const renew = setInterval(() => {
          void claims.claim(key(chain), owner, LEASE_MS).catch(() => undefined);
        }, LEASE_MS / 3);
        try {
          return await fn();
        } finally {
          clearInterval(renew);
          // A release that fails is not an error for the sender: the lease simply runs out.
          await claims.release(key(chain), owner).catch(() => undefined);
        }
      });
    local.set(chain, run);
    return run;
  };
}
