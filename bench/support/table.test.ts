import { describe, expect, it } from "vitest";
import { buildTable } from "./table.ts";

describe("buildTable", () => {
  it("pairs a figure with its floor and gives their ratio", () => {
    const rows = buildTable([
      { key: "gateway-rates", label: "rate via the gateway", value: 8_000, unit: "req/s" },
      { key: "hono-floor", label: "bare Hono", value: 20_000, unit: "req/s" },
    ]).rows;
    const rate = rows.find((r) => r.figure === "rate via the gateway");
    expect(rate).toMatchObject({ value: "8,000 req/s", floor: "bare Hono", ratioPercent: 40 });
  });

  it("keeps the row of a figure its script could not compute, saying so, with no ratio", () => {
    const rows = buildTable([{ key: "hono-floor", label: "bare Hono", value: 20_000, unit: "req/s" }]).rows;
    const missing = rows.find((r) => r.figure.startsWith("gateway-equivalent-work"));
    expect(missing).toMatchObject({
      figure: "gateway-equivalent-work: not measured in this run",
      value: "—",
      ratioPercent: null,
    });
  });
});
