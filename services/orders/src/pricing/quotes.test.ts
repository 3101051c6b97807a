import { CURRENCIES } from "@ramp/contracts";
import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { checkBusinessFee, checkOrderBounds, quoteOfframp, quoteOnramp } from "./quotes.ts";

const RATES: Record<(typeof CURRENCIES)[number], string> = {
  NGN: "1650",
  GHS: "15.6",
  TZS: "2680",
  KES: "130.5",
  ZAR: "18.6",
  USD: "1",
};
const stable = { usdPrice: "1", decimals: 6 };

describe("onramp pricing table", () => {
  for (const currency of CURRENCIES) {
    const rate = RATES[currency];
    it(`${currency}: amount without fee → fiat = A·r rounded up`, () => {
      const q = quoteOnramp({ ...stable, amount: "10.123457", rate, fee: "0" });
      expect(q.amount.toString()).toBe("10.123457");
      expect(q.fiatAmount.toString()).toBe(
        new Decimal("10.123457").mul(rate).toDecimalPlaces(2, Decimal.ROUND_UP).toString(),
      );
    });
    it(`${currency}: amount with fee → billed for A + f, still receives A`, () => {
      const q = quoteOnramp({ ...stable, amount: "100", rate, fee: "1.5" });
      expect(q.amount.toString()).toBe("100");
      expect(q.fiatAmount.toFixed(2)).toBe((Number(rate) * 101.5).toFixed(2));
      expect(q.usdcAmount.toString()).toBe("100");
    });
    it(`${currency}: fiatAmount with fee → A = F/r − f rounded down to 6 dp`, () => {
      const q = quoteOnramp({ ...stable, fiatAmount: "5000", rate, fee: "0.25" });
      const expected = 5000 / Number(rate) - 0.25;
      expect(q.amount.toNumber()).toBeLessThanOrEqual(expected);
      expect(expected - q.amount.toNumber()).toBeLessThan(0.000001);
      expect(q.amount.decimalPlaces()).toBeLessThanOrEqual(6);
    });
  }

  it("rounds the fiat up and the token down, never in the user's favour", () => {
    expect(quoteOnramp({ ...stable, amount: "1.000001", rate: "1650", fee: "0" }).fiatAmount.toString()).toBe(
      "1650.01",
    );
    expect(quoteOnramp({ ...stable, fiatAmount: "1000", rate: "1650", fee: "0" }).amount.toString()).toBe(
      "0.60606",
    );
  });

  it("charges Solana token-account rent on top with amount, and out of the tokens with fiatAmount", () => {
    const withRent = quoteOnramp({ ...stable, amount: "10", rate: "1000", fee: "0", setupCostUsd: "0.3" });
    expect(withRent.fiatAmount.toString()).toBe("10300");
    const fromFiat = quoteOnramp({
      ...stable,
      fiatAmount: "10300",
      rate: "1000",
      fee: "0",
      setupCostUsd: "0.3",
    });
    expect(fromFiat.amount.toString()).toBe("10");
  });

  it("prices a non-stablecoin through its USD price", () => {
    const q = quoteOnramp({ amount: "2", usdPrice: "150", decimals: 9, rate: "1000", fee: "1" });
    expect(q.fiatAmount.toString()).toBe("301000");
    expect(q.usdcAmount.toString()).toBe("300");
  });

  it("rejects a fiatAmount that does not cover the fee", () => {
    expect(() => quoteOnramp({ ...stable, fiatAmount: "100", rate: "1650", fee: "1" })).toThrow(
      /does not cover/,
    );
  });
});

describe("offramp pricing", () => {
  it("amount → fiat = (A − f)·r rounded down", () => {
    const q = quoteOfframp({ ...stable, amount: "10.555555", rate: "1580", fee: "0.5" });
    expect(q.fiatAmount.toString()).toBe("15887.77");
  });
  it("prices another token at its USD value", () => {
    const q = quoteOfframp({ amount: "0.5", usdPrice: "3000", decimals: 18, rate: "1600", fee: "10" });
    expect(q.usdcAmount.toString()).toBe("1500");
    expect(q.fiatAmount.toString()).toBe("2384000");
    expect(
      quoteOfframp({
        fiatAmount: "2384000",
        usdPrice: "3000",
        decimals: 18,
        rate: "1600",
        fee: "10",
      }).amount.toString(),
    ).toBe("0.5");
  });

  it("fiatAmount → A = F/r + f rounded up", () => {
    const q = quoteOfframp({ ...stable, fiatAmount: "10000", rate: "1580", fee: "0.5" });
    expect(q.amount.toString()).toBe("6.829114");
    expect(
      quoteOfframp({ ...stable, amount: q.amount.toString(), rate: "1580", fee: "0.5" }).fiatAmount.gte(
        10000,
      ),
    ).toBe(true);
  });
});

describe("order bounds", () => {
  it("rejects orders under the minimum, over the maximum, or finer than the token", () => {
    const q = (amount: string) => quoteOfframp({ ...stable, amount, rate: "1", fee: "0" });
    expect(() => checkOrderBounds(q("0.4"), 6, "0.5", "10000")).toThrow(/below the minimum/);
    expect(() => checkOrderBounds(q("10001"), 6, "0.5", "10000")).toThrow(/above the maximum/);
    expect(() => checkOrderBounds(q("1.0000001"), 6, "0.5", "10000")).toThrow(/at most 6 decimal/);
    expect(() => checkOrderBounds(q("1"), 6, "0.5", "10000")).not.toThrow();
  });
});

describe("businessUSDCFee", () => {
  it("must stay below what the order is worth, so the fee alone never sets the price", () => {
    const q = quoteOnramp({ ...stable, amount: "10", rate: "1650", fee: "9.99" });
    expect(() => checkBusinessFee(q, "9.99")).not.toThrow();
    expect(() => checkBusinessFee(q, "10")).toThrow(/businessUSDCFee must be below/);
    const huge = quoteOnramp({ ...stable, amount: "10", rate: "1650", fee: "100000000000000000000" });
    expect(() => checkBusinessFee(huge, "100000000000000000000")).toThrow(/businessUSDCFee/);
  });
});
