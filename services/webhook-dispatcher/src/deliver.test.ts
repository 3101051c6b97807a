import { describe, expect, it } from "vitest";
import { waitsForPredecessor } from "./deliver.ts";

describe("a status waiting for the one before it", () => {
  it("an order's first status change (1) goes at once: INIT is never announced", () => {
    expect(waitsForPredecessor(1, -1, 0)).toBe(false);
  });

  it("a payment's only status (0) goes at once", () => {
    expect(waitsForPredecessor(0, -1, 0)).toBe(false);
  });

  it("a later status waits for the one before it, for at most the grace", () => {
    expect(waitsForPredecessor(2, -1, 0)).toBe(true);
    expect(waitsForPredecessor(2, 0, 999)).toBe(true);
    expect(waitsForPredecessor(2, 1, 0)).toBe(false);
    expect(waitsForPredecessor(3, 1, 500)).toBe(true);
    expect(waitsForPredecessor(2, -1, 1_000)).toBe(false);
  });
});
