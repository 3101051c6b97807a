import { AppError, badRequest } from "@ramp/contracts";
import { Decimal } from "decimal.js";

/** A stored decimal string as the JSON number replies carry. */
export const num = (v: string) => new Decimal(v).toNumber();

/** Fiat is quoted in major units with 2 decimals. */
export const FIAT_DP = 2;

export interface QuoteInput {
  /** Exactly one of `amount` (token units) and `fiatAmount` (major units). */
  amount?: string | undefined;
  fiatAmount?: string | undefined;
  /** Fiat per 1 USD, business fee already applied. */
  rate: string;
  /** businessUSDCFee, in USD (settlement stablecoin). */
  fee: string;
  /** USD price of one token; 1 for the settlement stablecoin. */
  usdPrice: string;
  decimals: number;
  /** Onramp only: USD cost of preparing the recipient (Solana token-account rent). */
  setupCostUsd?: string;
}

export interface Quote {
  amount: Decimal;
  fiatAmount: Decimal;
  /** USD value of the tokens moved (delivered on onramp, sold on offramp). */
  usdcAmount: Decimal;
}

const NOT_ENOUGH = "amount does not cover the fee";

/**
 * Onramp (docs/architecture.md §4). `amount` A → fiat = (A·p + f + rent)·r rounded UP; the user receives A.
 * `fiatAmount` F → A = (F/r − f − rent)/p rounded DOWN to the token's decimals, and must be positive.
 */
export function quoteOnramp(q: QuoteInput): Quote {
  const r = new Decimal(q.rate);
  const f = new Decimal(q.fee);
  const p = new Decimal(q.usdPrice);
  const rent = new Decimal(q.setupCostUsd ?? 0);
  if (q.amount !== undefined) {
    const amount = new Decimal(q.amount);
    const usd = amount.mul(p);
    const fiatAmount = usd.add(f).add(rent).mul(r).toDecimalPlaces(FIAT_DP, Decimal.ROUND_UP);
    return { amount, fiatAmount, usdcAmount: usd };
  }
  const fiatAmount = new Decimal(q.fiatAmount ?? 0);
  const amount = fiatAmount.div(r).sub(f).sub(rent).div(p).toDecimalPlaces(q.decimals, Decimal.ROUND_DOWN);
  if (amount.lte(0)) throw badRequest(NOT_ENOUGH);
  return { amount, fiatAmount, usdcAmount: amount.mul(p) };
}

/**
 * Offramp (docs/architecture.md §4). `amount` A → fiat = (A·p − f)·r rounded DOWN.
 * `fiatAmount` F → A = (F/r + f)/p rounded UP to the token's decimals.
 */
export function quoteOfframp(q: QuoteInput): Quote {
  const r = new Decimal(q.rate);
  const f = new Decimal(q.fee);
  const p = new Decimal(q.usdPrice);
  if (q.amount !== undefined) {
    const amount = new Decimal(q.amount);
    const usd = amount.mul(p);
    const fiatAmount = usd.sub(f).mul(r).toDecimalPlaces(FIAT_DP, Decimal.ROUND_DOWN);
    if (fiatAmount.lte(0)) throw badRequest(NOT_ENOUGH);
    return { amount, fiatAmount, usdcAmount: usd };
  }
  const fiatAmount = new Decimal(q.fiatAmount ?? 0);
  const amount = fiatAmount.div(r).add(f).div(p).toDecimalPlaces(q.decimals, Decimal.ROUND_UP);
  return { amount, fiatAmount, usdcAmount: amount.mul(p) };
}

/** Rejects amounts finer than the token can represent, and orders outside the configured USD bounds. */
export function checkOrderBounds(q: Quote, decimals: number, minUsd: string, maxUsd: string): void {
  if (q.amount.decimalPlaces() > decimals)
    throw badRequest(`amount must have at most ${decimals} decimal places`);
  if (q.usdcAmount.lt(minUsd)) throw badRequest(`amount is below the minimum of ${minUsd} USD`);
  if (q.usdcAmount.gt(maxUsd)) throw badRequest(`amount is above the maximum of ${maxUsd} USD`);
}

/**
 * The business's own fee (businessUSDCFee, USD) must be smaller than what the order is worth, else
 * the fee alone would set the price.
 */
export function checkBusinessFee(q: Quote, fee: string): void {
  if (new Decimal(fee).gte(q.usdcAmount))
    throw badRequest("businessUSDCFee must be below the order's USD value");
}

/** A quote as orders store it: decimal strings, fiat at exactly 2 decimals. */
export interface StoredQuote {
  amount: string;
  fiatAmount: string;
  usdcAmount: string;
}

export const toStored = (q: Quote): StoredQuote => ({
  amount: q.amount.toString(),
  fiatAmount: q.fiatAmount.toFixed(FIAT_DP),
  usdcAmount: q.usdcAmount.toString(),
});

/** Re-prices funds that landed; null when they are worth less than the fee (the order then errors). */
export function priceLanded(quote: () => Quote): StoredQuote | null {
  try {
    return toStored(quote());
  } catch (err) {
    if (err instanceof AppError && err.code === "BAD_REQUEST") return null;
    throw err;
  }
}
