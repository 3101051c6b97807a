import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { LimitBuckets } from "@ramp/contracts";
import { isWrongRevision, type Logger, retryJetStreamSetup } from "@ramp/runtime";
import { admit, type RateLimit, type RateLimitStore } from "./rate-limit.ts";

/**
 * Longer than any bucket takes to fill up again (`burst / perSecond`), so an entry that expired said
 * nothing a full bucket does not. It only bounds how long a quiet key's entry is kept.
 */
const ENTRY_TTL_MS = 60 * 60 * 1000;
/** Compare-and-set rounds lost to other replicas before the request is answered 429. */
const MAX_ROUNDS = 8;
/** The most keys this process remembers a revision for; past it, it forgets them all and reads again. */
const MAX_CACHED_KEYS = 50_000;

interface Known {
  tat: number | undefined;
  /** 0: no live entry, so the write is a create. */
  revision: number;
}

/**
 * The buckets in the gateway's own KV bucket (`LimitBuckets.gateway`), one entry per API key holding its
 * GCRA time, written only with the revision it was read at: two replicas admitting the same key at once
 * cannot both move it from the same value, so together they allow the documented limit, not twice it.
 *
 * Each process takes one key's requests one after another and remembers the last entry it wrote or
 * read per key, writing against that; only when another replica wrote meanwhile does it read again. A refusal costs no round trip: other replicas
 * only ever move a key's time forwards, so what this one last saw refusing is refused by the newest
 * too. Replicas read their own clocks; a skew between them shifts a key's refill by that much.
 */
export function openRateLimitStore(
  nc: NatsConnection,
  limit: RateLimit,
  opts: { replicas: number; log: Logger },
): () => Promise<RateLimitStore> {
  let opening: Promise<RateLimitStore> | undefined;
  return () => {
    opening ??= open().catch((err: unknown) => {
      opening = undefined;
      throw err;
    });
    return opening;
  };

  async function open(): Promise<RateLimitStore> {
    const kv: KV = await retryJetStreamSetup(
      `limit bucket ${LimitBuckets.gateway.bucket}`,
      () =>
        new Kvm(nc).create(LimitBuckets.gateway.bucket, {
          history: 1,
          ttl: ENTRY_TTL_MS,
          replicas: opts.replicas,
        }),
      { log: opts.log },
    );
    const known = new Map<string, Known>();

    async function read(key: string): Promise<Known> {
      const entry = await kv.get(key);
      if (!entry) return { tat: undefined, revision: 0 };
      if (entry.operation !== "PUT") return { tat: undefined, revision: entry.revision };
      return { tat: Number(entry.string()), revision: entry.revision };
    }

    async function take(key: string): Promise<number> {
      const now = Date.now();
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const seen = known.get(key) ?? (await read(key));
        const verdict = admit(seen.tat, now, limit);
        if (!verdict.allowed) {
          known.set(key, seen);
          return verdict.waitMs;
        }
        try {
          const value = String(verdict.tat);
          const revision =
            seen.revision === 0 ? await kv.create(key, value) : await kv.update(key, value, seen.revision);
          if (known.size >= MAX_CACHED_KEYS) known.clear();
          known.set(key, { tat: verdict.tat, revision });
          return 0;
        } catch (err) {
          if (!isWrongRevision(err)) throw err;
          known.delete(key);
        }
      }
      // Lost every round to other replicas admitting the same key: it is at its limit in all but name.
      return Math.ceil(1000 / limit.perSecond);
    }

    /** One take at a time per key in this process, so its own requests never race each other's writes. */
    const queues = new Map<string, Promise<number>>();
    return {
      take(key) {
        const next = (queues.get(key) ?? Promise.resolve(0)).catch(() => 0).then(() => take(key));
        queues.set(key, next);
        const forget = () => {
          if (queues.get(key) === next) queues.delete(key);
        };
        next.then(forget, forget);
        return next;
      },
    };
  }
}
