import { describe, expect, it } from "vitest";
import { dayTotals } from "./reconciliation.ts";

describe("a day's totals", () => {
  it("adds onramps and offramps per currency and chain in exact decimals, refunds on rows of their own", () => {
    const rows = dayTotals(
      [
        {
          transactionType: "ON_RAMP",
          currency: "NGN",
          chain: "BASE",
          fiatAmount: "1650.10",
          amount: "0.1",
          fee: "0.2",
        },
        {
          transactionType: "ON_RAMP",
          currency: "NGN",
          chain: "BASE",
          fiatAmount: "1650.20",
          amount: "0.2",
          fee: "0.1",
        },
        {
          transactionType: "OFF_RAMP",
          currency: "NGN",
          chain: "BASE",
          fiatAmount: "16000",
          amount: "10.000001",
          fee: "0",
        },
        {
          transactionType: "OFF_RAMP",
          currency: "KES",
          chain: "SOLANA",
          fiatAmount: "1290",
          amount: "10",
          fee: "0.5",
        },
      ],
      [
        { currency: null, chain: "BASE", amount: "3.25" },
        { currency: "NGN", chain: null, amount: "16500.00" },
      ],
    );
    expect(rows).toEqual([
      expect.objectContaining({
        currency: "KES",
        chain: "SOLANA",
        ordersCompleted: 1,
        fiatOut: "1290",
        tokensIn: "10",
        feesEarned: "0.5",
      }),
      expect.objectContaining({
        currency: "NGN",
        chain: "BASE",
        ordersCompleted: 3,
        fiatIn: "3300.3",
        tokensOut: "0.3",
        fiatOut: "16000",
        tokensIn: "10.000001",
        feesEarned: "0.3",
        refunds: 0,
      }),
      expect.objectContaining({
        currency: "NGN",
        chain: null,
        refunds: 1,
        fiatRefunded: "16500",
        tokensRefunded: "0",
      }),
      expect.objectContaining({
        currency: null,
        chain: "BASE",
        ordersCompleted: 0,
        refunds: 1,
        tokensRefunded: "3.25",
      }),
    ]);
  });

  it("an empty day has no rows", () => {
    expect(dayTotals([], [])).toEqual([]);
  });
});
