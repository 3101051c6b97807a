import { describe, expect, it } from "vitest";
import { admit } from "./rate-limit.ts";

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
