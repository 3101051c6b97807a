import type { Currency, RateDto, RatesDto, RateType } from "@ramp/contracts";
import { Decimal } from "decimal.js";

/** Rates are published with 8 decimals, rounded in the service's favour. */
const RATE_DP = 8;

export interface MarketRate {
  currency: Currency;
  onRamp: string;
  offRamp: string;
  onRampId: string;
  offRampId: string;
  createdAt: Date;
}

/**
 * The business fee widens the spread. Onramp (user buys crypto) is dearer,
 * offramp (user sells) pays less: onRamp × (1 + bps/10⁴), offRamp × (1 − bps/10⁴).
 */
export function applyFee(market: string, feeBps: number, type: RateType): Decimal {
  const factor = new Decimal(feeBps).div(10_000);
  const m = new Decimal(market);
  return type === "onRamp"
    ? m.mul(Decimal.add(1, factor)).toDecimalPlaces(RATE_DP, Decimal.ROUND_UP)
    : m.mul(Decimal.sub(1, factor)).toDecimalPlaces(RATE_DP, Decimal.ROUND_DOWN);
}

function rateDto(market: MarketRate, feeBps: number, type: RateType): RateDto {
  return {
    rate: applyFee(type === "onRamp" ? market.onRamp : market.offRamp, feeBps, type).toNumber(),
    type,
    id: type === "onRamp" ? market.onRampId : market.offRampId,
    baseCurrency: "USD",
    targetCurrency: market.currency,
    createdAt: market.createdAt.toISOString(),
  };
}

export function businessRates(market: MarketRate, feeBps: number): RatesDto {
  return { onRampRate: rateDto(market, feeBps, "onRamp"), offRampRate: rateDto(market, feeBps, "offRamp") };
}
