import { describe, expect, it } from "vitest";
import { IdempotencyKey } from "./idempotency.ts";

const valid = (key: string) => IdempotencyKey.safeParse(key).success;

describe("Idempotency-Key syntax", () => {
  it("accepts 1 to 255 visible ASCII characters", () => {
    expect(valid("a")).toBe(true);
    expect(valid("order-2026-01-02/7f3a:retry#1")).toBe(true);
    expect(valid("~".repeat(255))).toBe(true);
  });

  it("rejects empty, 256 characters, spaces, controls and non-ASCII", () => {
    expect(valid("")).toBe(false);
    expect(valid("k".repeat(256))).toBe(false);
    expect(valid("a b")).toBe(false);
    expect(valid("a\tb")).toBe(false);
    expect(valid("\x7f")).toBe(false);
    expect(valid("clé")).toBe(false);
  });
});
