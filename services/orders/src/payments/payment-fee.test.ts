import { describe, expect, it } from "vitest";
import { paymentTotals } from "./payment-fee.ts";

describe("payment fee", () => {
  it("adds 1% on top by default, rounded up at the asset's precision", () => {
    const t = paymentTotals("100", 100, 6);
    expect([t.fee.toString(), t.totalAmount.toString()]).toEqual(["1", "101"]);
    const odd = paymentTotals("0.333333", 100, 6);
    expect(odd.fee.toString()).toBe("0.003334");
    expect(paymentTotals("10.01", 100, 2).fee.toString()).toBe("0.11");
  });
  it("charges nothing at 0 bps", () => {
    expect(paymentTotals("5", 0, 2).totalAmount.toString()).toBe("5");
  });
});
