import { Decimal } from "decimal.js";

/** The platform fee is on top, rounded up at the asset's precision; the business is credited `amount`. */
export function paymentTotals(amount: string, feeBps: number, decimals: number) {
  const a = new Decimal(amount);
  const fee = a.mul(feeBps).div(10_000).toDecimalPlaces(decimals, Decimal.ROUND_UP);
  return { amount: a, fee, totalAmount: a.add(fee) };
}
