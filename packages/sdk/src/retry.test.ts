import { describe, expect, it } from "vitest";
import { parseRetryAfter, resolveRetry, retryDelayMs } from "./retry.ts";

describe("Retry-After", () => {
  it("reads delta-seconds and HTTP dates, and ignores anything else", () => {
    const now = Date.parse("2026-01-02T03:04:05Z");
    expect(parseRetryAfter("7", now)).toBe(7);
    expect(parseRetryAfter("Fri, 02 Jan 2026 03:04:15 GMT", now)).toBe(10);
    expect(parseRetryAfter("Fri, 02 Jan 2026 03:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("backoff", () => {
  const retry = resolveRetry({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 });

  it("without Retry-After waits a random share of a doubling ceiling, capped", () => {
    expect(retryDelayMs(retry, 1, undefined, () => 1)).toBe(100);
    expect(retryDelayMs(retry, 3, undefined, () => 1)).toBe(400);
    expect(retryDelayMs(retry, 4, undefined, () => 1)).toBe(800);
    expect(retryDelayMs(retry, 3, undefined, () => 0.5)).toBe(200);
    expect(
      retryDelayMs(
        resolveRetry({ baseDelayMs: 100, maxDelayMs: 300, maxAttempts: 9 }),
        6,
        undefined,
        () => 1,
      ),
    ).toBe(300);
  });

  it("stops after the last attempt and when the server asks for more than the bound", () => {
    expect(retryDelayMs(retry, 5, undefined)).toBeUndefined();
    expect(retryDelayMs(retry, 1, 2)).toBeUndefined();
    expect(retryDelayMs(retry, 1, 1)).toBe(1_000);
  });
});
