import { AppError } from "@ramp/contracts";
import { createMiddleware } from "hono/factory";
import type { GatewayEnv } from "./env.ts";

interface Bucket {
  tokens: number;
  at: number;
}

/** Pure token bucket: refills at `perSecond`, holds at most `burst`. Returns the wait in ms, 0 if allowed. */
export function takeToken(bucket: Bucket, now: number, perSecond: number, burst: number): number {
  bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
  bucket.at = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return 0;
  }
  return Math.ceil(((1 - bucket.tokens) / perSecond) * 1000);
}

/** Per API key, per gateway instance (token bucket, see docs/architecture.md §5): 429 with Retry-After. */
export function rateLimit(opts: { perSecond: number; burst: number }) {
  const buckets = new Map<string, Bucket>();
  return createMiddleware<GatewayEnv>(async function rateLimit(c, next) {
    if (opts.perSecond > 0) {
      const key = c.get("caller").apiKeyId;
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size > 50_000) buckets.clear();
        bucket = { tokens: opts.burst, at: Date.now() };
        buckets.set(key, bucket);
      }
      const waitMs = takeToken(bucket, Date.now(), opts.perSecond, opts.burst);
      if (waitMs > 0) {
        c.header("Retry-After", String(Math.max(1, Math.ceil(waitMs / 1000))));
        throw new AppError("RATE_LIMITED", "Too Many Requests");
      }
    }
    await next();
  });
}
