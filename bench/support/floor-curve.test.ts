import { describe, expect, it } from "vitest";
import { equivalentWorkUs } from "./floor-curve.ts";

// Figures shaped like one run on this machine: CPU per request (ms) of bare Hono with work added.
const curve = [
  { workUs: 0, cpuMs: 0.021 },
  { workUs: 10, cpuMs: 0.04 },
  { workUs: 20, cpuMs: 0.055 },
  { workUs: 40, cpuMs: 0.079 },
];

describe("equivalentWorkUs", () => {
  it("reads a cost between two measured points on the line between them", () => {
    expect(equivalentWorkUs(curve, 0.067)).toBeCloseTo(30, 5);
    expect(equivalentWorkUs(curve, 0.04)).toBeCloseTo(10, 5);
  });

  it("extends the last segment past the last point, whatever order the points came in", () => {
    expect(equivalentWorkUs([...curve].reverse(), 0.091)).toBeCloseTo(50, 5);
  });

  it("has no answer below the floor or without a curve", () => {
    expect(equivalentWorkUs(curve, 0.01)).toBeUndefined();
    expect(equivalentWorkUs([{ workUs: 0, cpuMs: 0.02 }], 0.05)).toBeUndefined();
  });
});
