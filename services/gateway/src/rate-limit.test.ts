import { createLogger } from "@ramp/runtime";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { GatewayEnv } from "./env.ts";
import { onError } from "./errors.ts";
import { admit, rateLimit } from "./rate-limit.ts";

/** Runs requests at the given times against one key's state, as the store does; the verdicts in order. */
function run(times: number[], limit: { perSecond: number; burst: number }) {
  let tat: number | undefined;
  return times.map((now) => {
    const verdict = admit(tat, now, limit);
    if (verdict.allowed) tat = verdict.tat;
    return verdict.allowed ? 0 : verdict.waitMs;
  });
}

describe("the per-key bucket", () => {
  it("allows a burst, then asks the caller to wait for the refill", () => {
    expect(run([0, 0, 0, 0, 1000], { perSecond: 1, burst: 3 })).toEqual([0, 0, 0, 1000, 0]);
  });

  it("refills at the sustained rate after a quiet spell, never beyond the burst", () => {
    const limit = { perSecond: 10, burst: 5 };
    // A minute of silence refills 5 (the burst), not 600: the sixth request at the same instant waits.
    expect(run([0, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000], limit)).toEqual([0, 0, 0, 0, 0, 0, 100]);
  });

  it("admits the sustained rate indefinitely", () => {
    const times = Array.from({ length: 200 }, (_, i) => i * 20);
    expect(run(times, { perSecond: 50, burst: 1 }).every((wait) => wait === 0)).toBe(true);
  });
});

describe("the limit's middleware", () => {
  /** A route behind the limit, with `take` as the shared store's answer and a log that records warnings. */
  function limited(take: () => Promise<number>) {
    const warnings: string[] = [];
    const log = createLogger("rate-limit-test", "silent");
    log.warn = ((...args: unknown[]) => {
      warnings.push(String(args[1]));
    }) as typeof log.warn;
    const app = new Hono<GatewayEnv>();
    app.onError(onError);
    app.use(async (c, next) => {
      c.set("log", log);
      c.set("caller", { businessId: "b1", apiKeyId: "k1" });
      await next();
    });
    app.get(
      "/",
      rateLimit(async () => ({ take })),
      (c) => c.text("ok"),
    );
    return { app, warnings };
  }

  it("answers 429 with Retry-After in whole seconds when the store says wait", async () => {
    const { app } = limited(async () => 1500);
    const res = await app.request("/");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
  });

  it("lets requests through, warning once, while the shared store cannot be reached", async () => {
    const { app, warnings } = limited(async () => {
      throw new Error("no responders");
    });
    expect((await app.request("/")).status).toBe(200);
    expect((await app.request("/")).status).toBe(200);
    expect(warnings.filter((w) => w.includes("rate limit store unavailable"))).toHaveLength(1);
  });
});
