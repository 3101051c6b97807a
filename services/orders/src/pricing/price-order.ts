import type { NatsConnection } from "@nats-io/transport-node";
import { type Chain, type Currency, Rpc, type TransactionType } from "@ramp/contracts";
import { allInOrder, callRpc, type RateCache, type TraceContext } from "@ramp/runtime";
import type { OrdersConfig } from "../config.ts";
import {
  checkBusinessFee,
  checkOrderBounds,
  quoteOfframp,
  quoteOnramp,
  type StoredQuote,
  toStored,
} from "./quotes.ts";

/** The numbers an order is stored with, and a quote locks: decimal strings, as stored. */
export interface Pricing extends StoredQuote {
  /** Fiat per 1 USD, business fee applied. */
  rate: string;
  /** businessUSDCFee, in USD. */
  fee: string;
  usdPrice: string;
  decimals: number;
  /** Onramp only (else "0"): USD cost of preparing the recipient. */
  setupCostUsd: string;
}

export interface PriceRequest {
  type: TransactionType;
  currency: Currency;
  chain: Chain;
  mint: string;
  /** Decimal strings, as the gateway's decimal policy read them from the request. */
  amount?: string | undefined;
  fiatAmount?: string | undefined;
  businessUSDCFee?: string | undefined;
  /**
   * Onramp order: whose setup (Solana token-account rent) is charged. An onramp quote has no recipient
   * yet, so it is priced for one that never held the token: a quote never under-charges the rent.
   */
  recipient?: string | undefined;
}

/**
 * The one pricing path of orders and quotes: the token's decimals and price, the business's rate for
 * the direction, the arithmetic of quotes.ts, and the configured order bounds.
 */
export async function priceOrder(
  deps: { nc: NatsConnection; config: OrdersConfig; rates: RateCache },
  businessId: string,
  req: PriceRequest,
  trace: TraceContext,
): Promise<Pricing> {
  const { nc, config, rates: businessRates } = deps;
  const onramp = req.type === "ON_RAMP";
  // The token and the business's rates are independent: asked together, with a token error first.
  const [token, rates] = await allInOrder(
    callRpc(
      nc,
      Rpc.tokenInfo,
      {
        chain: req.chain,
        mint: req.mint,
        ...(onramp && req.recipient !== undefined ? { recipient: req.recipient } : {}),
        ...(onramp && req.recipient === undefined ? { newRecipient: true } : {}),
      },
      trace,
    ),
    // Pricing's answer as this process keeps it (exact: dropped on pricing's change feed).
    businessRates.get(businessId, req.currency, trace),
  );
  const rate = String((onramp ? rates.onRampRate : rates.offRampRate).rate);
  const fee = req.businessUSDCFee ?? "0";
  const input = {
    amount: req.amount,
    fiatAmount: req.fiatAmount,
    rate,
    fee,
    usdPrice: token.usdPrice,
    decimals: token.decimals,
    setupCostUsd: onramp ? token.setupCostUsd : "0",
  };
  const quote = onramp ? quoteOnramp(input) : quoteOfframp(input);
  checkOrderBounds(quote, token.decimals, config.ORDER_MIN_USD, config.ORDER_MAX_USD);
  checkBusinessFee(quote, fee);
  return {
    ...toStored(quote),
    rate,
    fee,
    usdPrice: token.usdPrice,
    decimals: token.decimals,
    setupCostUsd: input.setupCostUsd,
  };
}
