import { describe, expect, it } from "vitest";
import { daysBetween, summariseDay } from "./overview.ts";

describe("the overview's days", () => {
  it("lists every UTC day of the span, both ends included, across a month's end", () => {
    expect(daysBetween("2026-02-27", "2026-03-02")).toEqual([
      "2026-02-27",
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
    expect(daysBetween("2026-03-02", "2026-03-01")).toEqual([]);
  });

  it("counts every status, and adds only completed orders' volume, exactly", () => {
    const order = { currency: "NGN", chain: "BASE", fiatAmount: "0.10", usdcAmount: "0.000001" } as const;
    const day = summariseDay("2026-03-01", [
      { ...order, status: "COMPLETED" },
      { ...order, status: "COMPLETED", fiatAmount: "0.20" },
      { ...order, status: "COMPLETED", currency: "GHS", chain: "SOLANA", fiatAmount: "5" },
      { ...order, status: "ERROR", fiatAmount: "1000" },
      { ...order, status: "INIT" },
    ]);
    expect(day.byStatus).toEqual({ INIT: 1, PROCESSING: 0, COMPLETED: 3, ERROR: 1 });
    // 0.1 + 0.2 in binary floating point is 0.30000000000000004.
    expect(day.fiat).toEqual([
      { currency: "NGN", amount: "0.3" },
      { currency: "GHS", amount: "5" },
    ]);
    expect(day.tokens).toEqual([
      { chain: "BASE", amount: "0.000002" },
      { chain: "SOLANA", amount: "0.000001" },
    ]);
  });
});
