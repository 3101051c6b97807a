import { AppError } from "@ramp/contracts";
import { createMiddleware } from "hono/factory";
import type { GatewayEnv } from "./env.ts";

export interface RateLimit {
  perSecond: number;
  burst: number;
}

/**
 * The token bucket as one number (GCRA): `tat`, the time at which the key's bucket would be full again.
 * A request at `now` is allowed while that time is at most `burst - 1` intervals ahead, and moves it one
 * interval on; so a key gets `burst` requests at once, then `perSecond`. One number is what lets the
 * replicas share the bucket through a single compare-and-set entry. Pure: no clock, no store.
 */
export function admit(
  tat: number | undefined,
  now: number,
  limit: RateLimit,
): { allowed: true; tat: number } | { allowed: false; waitMs: number } {
  const interval = 1000 / limit.perSecond;
  const from = Math.max(tat ?? now, now);
  const ahead = from - now - (limit.burst - 1) * interval;
  if (ahead > 0) return { allowed: false, waitMs: Math.ceil(ahead) };
  return { allowed: true, tat: from + interval };
}

/** Where the replicas' buckets live: `take` answers 0 when a request of `key` may go now, else the wait in ms. */
export interface RateLimitStore {
  take(key: string): Promise<number>;
}

/** How often, at most, a replica logs that it let requests through unlimited. */
const UNAVAILABLE_WARN_EVERY_MS = 10_000;

/**
 * Per API key across all gateway replicas (docs/architecture.md §5): 429 with Retry-After.
 * While the shared store cannot be reached (a NATS node failing over, its bucket's leader being
 * elected) requests go through unlimited, with a warning: the limit guards against a caller's excess,
 * and refusing every caller during an outage of the limit's own store would be the larger harm.
 */
export function rateLimit(store: () => Promise<RateLimitStore>) {
  let warnedAt = Number.NEGATIVE_INFINITY;
  return createMiddleware<GatewayEnv>(async function rateLimit(c, next) {
    let waitMs = 0;
    try {
      waitMs = await (await store()).take(c.get("caller").apiKeyId);
    } catch (err) {
      if (Date.now() - warnedAt >= UNAVAILABLE_WARN_EVERY_MS) {
        warnedAt = Date.now();
        c.get("log").warn({ err }, "rate limit store unavailable: requests pass unlimited meanwhile");
      }
    }
    if (waitMs > 0) {
      c.header("Retry-After", String(Math.max(1, Math.ceil(waitMs / 1000))));
      throw new AppError("RATE_LIMITED", "Too Many Requests");
    }
    await next();
  });
}
