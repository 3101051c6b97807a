import { describe, expect, it } from "vitest";
import { applyFee, businessRates, type MarketRate } from "./rates.ts";

const market: MarketRate = {
  currency: "NGN",
  onRamp: "1600",
  offRamp: "1550.5",
  onRampId: "a",
  offRampId: "b",
  createdAt: new Date("2026-01-02T03:04:05.678Z"),
};

describe("applyFee", () => {
  it("leaves the market rate alone without a fee", () => {
    expect(applyFee("1600", 0, "onRamp").toString()).toBe("1600");
    expect(applyFee("1550.5", 0, "offRamp").toString()).toBe("1550.5");
  });

  it("raises the onramp rate and lowers the offramp rate by the fee", () => {
    expect(applyFee("1600", 150, "onRamp").toString()).toBe("1624");
    expect(applyFee("1550.5", 150, "offRamp").toString()).toBe("1527.2425");
  });

  it("rounds in the service's favour at 8 decimals", () => {
    expect(applyFee("0.333333333", 1, "onRamp").toString()).toBe("0.33336667");
    expect(applyFee("0.333333333", 1, "offRamp").toString()).toBe("0.33329999");
  });
});

describe("businessRates", () => {
  it("builds both directions with ids, USD base and ISO time", () => {
    const r = businessRates(market, 100);
    expect(r.onRampRate).toEqual({
      rate: 1616,
      type: "onRamp",
      id: "a",
      baseCurrency: "USD",
      targetCurrency: "NGN",
      createdAt: "2026-01-02T03:04:05.678Z",
    });
    expect(r.offRampRate.rate).toBe(1534.995);
    expect(r.offRampRate.type).toBe("offRamp");
  });
});
