import { describe, expect, it } from "vitest";
import { deepFreeze, isDeeplyFrozen } from "./deep-freeze.ts";

describe("deepFreeze", () => {
  it("freezes every object inside, and only what it froze counts as deeply frozen", () => {
    const answer = deepFreeze({ onRampRate: { rate: 1650, tags: ["a"] } });
    expect(() => {
      (answer.onRampRate as { rate: number }).rate = 1;
    }).toThrow(TypeError);
    expect(() => (answer.onRampRate.tags as string[]).push("b")).toThrow(TypeError);
    expect(isDeeplyFrozen(answer)).toBe(true);
    // Frozen on top only: what it holds may still change, so its text must not be kept.
    expect(isDeeplyFrozen(Object.freeze({ inner: { rate: 1 } }))).toBe(false);
    expect(isDeeplyFrozen("text")).toBe(false);
  });
});
