import { describe, expect, it } from "vitest";
import { startingView, waitsForPredecessor } from "./deliver.ts";
import type { LaneView } from "./lanes.ts";

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

describe("where a claim starts without reading the lane", () => {
  const lane = (delivered: number, holder: string | null = null): LaneView => ({
    state: { delivered, holder, until: holder ? Date.now() + 60_000 : 0, attempts: {} },
    revision: 7,
  });

  it("an order's next status after the one this replica delivered starts from what it wrote", () => {
    expect(startingView(lane(1), 2, 1)).toEqual(lane(1));
    // Redelivered or retried too: the compare-and-set at revision 7 still checks nobody wrote since.
    expect(startingView(lane(1), 2, 3)).toEqual(lane(1));
  });

  it("reads the lane when what it remembers would not simply send", () => {
    expect(startingView(lane(0), 2, 1)).toBeUndefined(); // the predecessor is not delivered: it may wait
    expect(startingView(lane(2), 2, 1)).toBeUndefined(); // already delivered: a duplicate
    expect(startingView(lane(1, "another replica"), 2, 1)).toBeUndefined(); // leased
  });

  it("a status with nothing before it starts a new lane on its first delivery only", () => {
    const fresh = startingView(undefined, 1, 1);
    expect(fresh?.revision).toBe(0);
    expect(fresh?.state.delivered).toBe(-1);
    expect(startingView(undefined, 0, 1)?.revision).toBe(0);
    expect(startingView(undefined, 1, 2)).toBeUndefined();
    expect(startingView(undefined, 2, 1)).toBeUndefined();
  });
});
