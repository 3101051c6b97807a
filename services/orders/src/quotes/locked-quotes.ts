import type { NatsConnection } from "@nats-io/transport-node";
import {
  badRequest,
  type Chain,
  type Currency,
  normalizeAddress,
  notFound,
  type QuoteDto,
  type QuoteOrder,
  quoteChain,
  type TransactionType,
} from "@ramp/contracts";
import type { RateCache, TraceContext } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import { ObjectId } from "mongodb";
import type { OrdersConfig } from "../config.ts";
import { type Pricing, priceOrder } from "../pricing/price-order.ts";
import { num } from "../pricing/quotes.ts";
import type { QuoteDoc, QuoteStore } from "./quote-store.ts";

export interface QuoteDeps {
  nc: NatsConnection;
  rates: RateCache;
  config: OrdersConfig;
  quotes: QuoteStore;
}

export function quoteDto(q: QuoteDoc): QuoteDto {
  return {
    id: q._id.toHexString(),
    type: q.type,
    currency: q.currency,
    chain: q.chain,
    mint: q.mint,
    rate: num(q.rate),
    amount: num(q.amount),
    fiatAmount: num(q.fiatAmount),
    usdcAmount: num(q.usdcAmount),
    fee: num(q.fee),
    createdAt: q.createdAt.toISOString(),
    expiresAt: q.expiresAt.toISOString(),
  };
}

/** Prices exactly as an order would be priced now, and keeps those numbers for `QUOTE_TTL_SECONDS`. */
export async function createQuote(
  deps: QuoteDeps,
  businessId: string,
  body: QuoteOrder,
  trace: TraceContext,
): Promise<QuoteDto> {
  const chain = quoteChain(body);
  const pricing = await priceOrder(deps, businessId, { ...body, chain }, trace);
  const createdAt = new Date();
  const doc: QuoteDoc = {
    _id: new ObjectId(),
    businessId,
    type: body.type,
    currency: body.currency,
    chain,
    mint: body.mint,
    mintKey: normalizeAddress(chain, body.mint),
    ...pricing,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + deps.config.QUOTE_TTL_SECONDS * 1000),
  };
  await deps.quotes.insert(doc);
  return quoteDto(doc);
}

/** What an order made from a quote must agree with. */
export interface QuotedOrder {
  quoteId: string;
  type: TransactionType;
  currency: Currency;
  chain: Chain;
  mint: string;
  businessUSDCFee?: string | undefined;
}

/**
 * The pricing an order takes from its quote: the quote must be this business's, unexpired, and for the
 * same direction, currency, chain, token and fee. Whether it was used is decided by `usingQuote`.
 */
export async function quotedPricing(
  quotes: QuoteStore,
  businessId: string,
  order: QuotedOrder,
  now = new Date(),
): Promise<{ quote: QuoteDoc; pricing: Pricing }> {
  const quote = await quotes.getForBusiness(order.quoteId, businessId);
  if (!quote) throw notFound("Quote not found");
  if (now.getTime() >= quote.expiresAt.getTime()) throw badRequest("Quote expired");
  const matches =
    quote.type === order.type &&
    quote.currency === order.currency &&
    quote.chain === order.chain &&
    quote.mintKey === normalizeAddress(order.chain, order.mint) &&
    (order.businessUSDCFee === undefined || new Decimal(order.businessUSDCFee).eq(quote.fee));
  if (!matches) throw badRequest("Quote does not match the order");
  const { amount, fiatAmount, usdcAmount, rate, fee, usdPrice, decimals, setupCostUsd } = quote;
  return { quote, pricing: { amount, fiatAmount, usdcAmount, rate, fee, usdPrice, decimals, setupCostUsd } };
}

/**
 * Runs `create` holding the quote for order `orderId`. A second order for the same quote gets 400
 * `Quote already used`; if `create` fails the quote is given back, so a retry of a failed order can use it.
 */
export async function usingQuote<T>(
  quotes: QuoteStore,
  quote: QuoteDoc | null,
  orderId: ObjectId,
  create: () => Promise<T>,
): Promise<T> {
  if (!quote) return create();
  const owner = orderId.toHexString();
  if (!(await quotes.claim(quote._id, owner))) throw badRequest("Quote already used");
  try {
    return await create();
  } catch (err) {
    await quotes.release(quote._id, owner);
    throw err;
  }
}
