import { describe, expect, it } from "vitest";
import { takeToken } from "./rate-limit.ts";

describe("token bucket", () => {
  it("allows a burst, then asks the caller to wait for the refill", () => {
    const bucket = { tokens: 3, at: 0 };
    expect([takeToken(bucket, 0, 1, 3), takeToken(bucket, 0, 1, 3), takeToken(bucket, 0, 1, 3)]).toEqual([
      0, 0, 0,
    ]);
    expect(takeToken(bucket, 0, 1, 3)).toBe(1000);
    expect(takeToken(bucket, 1000, 1, 3)).toBe(0);
  });
  it("never holds more than the burst", () => {
    const bucket = { tokens: 0, at: 0 };
    takeToken(bucket, 60_000, 10, 5);
    expect(bucket.tokens).toBe(4);
  });
});
