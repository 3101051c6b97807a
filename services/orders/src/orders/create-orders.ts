import type { NatsConnection } from "@nats-io/transport-node";
import {
  badRequest,
  type Chain,
  isAllowedWebhookUrl,
  NOT_PUBLIC_WEBHOOK_URL,
  normalizeAddress,
  type OfframpRequest,
  type OnrampRequest,
  Rpc,
  type TransactionDto,
} from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import type { OrdersConfig } from "../config.ts";
import { scopedKey } from "../idempotency/once-per-key.ts";
import { quotedPricing, usingQuote } from "../quotes/locked-quotes.ts";
import type { QuoteDoc, QuoteStore } from "../quotes/quote-store.ts";
import type { Quote } from "../quotes/quotes.ts";
import { type OrderDoc, toDto } from "./order-doc.ts";
import type { OrdersStore } from "./orders-store.ts";
import { type Pricing, priceOrder } from "./price-order.ts";

export interface CreateDeps {
  nc: NatsConnection;
  store: OrdersStore;
  quotes: QuoteStore;
  config: OrdersConfig;
}

interface Caller {
  businessId: string;
  apiKeyId: string;
  /** From the request's Idempotency-Key: a retry of a creation that happened returns that order. */
  idempotencyKey?: string | undefined;
}

export function baseDoc(
  caller: { businessId: string; apiKeyId: string | null },
  chain: Chain,
  mint: string,
  id: ObjectId = new ObjectId(),
): Omit<
  OrderDoc,
  | "transactionType"
  | "currency"
  | "recipient"
  | keyof Quote
  | "rate"
  | "fee"
  | "usdPrice"
  | "decimals"
  | "setupCostUsd"
> {
  return {
    _id: id,
    businessId: caller.businessId,
    apiKeyId: caller.apiKeyId,
    status: "INIT",
    sequence: 0,
    chain,
    mint,
    mintKey: normalizeAddress(chain, mint),
    address: "",
    signature: "",
    sender: "",
    accountNumber: "",
    accountName: "",
    bank: "",
    bankCode: "",
    webhookURL: null,
    userExternalId: null,
    userId: null,
    description: null,
    errorReason: null,
    createdAt: new Date(),
    expiresAt: null,
    outbox: [],
  };
}

/** An order's own webhookURL obeys the rule the dispatcher applies to saved webhook URLs. */
function checkWebhookUrl(url: string | undefined, allowPrivate: boolean): void {
  if (url !== undefined && !isAllowedWebhookUrl(url, allowPrivate)) throw badRequest(NOT_PUBLIC_WEBHOOK_URL);
}

/** The order's numbers (from its quote, or priced now) and its end user, verified when a BVN is given. */
async function verifyAndPrice(
  deps: CreateDeps,
  caller: Caller,
  body: OnrampRequest | OfframpRequest,
  trace: TraceContext,
): Promise<{ pricing: Pricing & { userId: string | null }; quote: QuoteDoc | null }> {
  const { nc } = deps;
  const onramp = "recipient" in body;
  checkWebhookUrl(body.webhookURL, deps.config.WEBHOOK_ALLOW_PRIVATE);
  const terms = { ...body, type: onramp ? ("ON_RAMP" as const) : ("OFF_RAMP" as const) };
  const quoted = body.quoteId
    ? await quotedPricing(deps.quotes, caller.businessId, { ...terms, quoteId: body.quoteId })
    : null;
  const kyc = body.bvn
    ? await callRpc(nc, Rpc.kycVerify, { businessId: caller.businessId, bvn: body.bvn }, trace)
    : null;
  const pricing = quoted?.pricing ?? (await priceOrder(deps, caller.businessId, terms, trace));
  return { pricing: { ...pricing, userId: kyc?.userId ?? null }, quote: quoted?.quote ?? null };
}

/**
 * Offramp creation: the payout account is confirmed first (nothing is stored for an account that cannot be
 * resolved); then BVN, pricing, a fresh deposit address in the chain's format, and the INIT order.
 */
export async function createOfframp(
  deps: CreateDeps,
  caller: Caller,
  body: OfframpRequest,
  trace: TraceContext,
): Promise<TransactionDto> {
  const { nc, store } = deps;
  const key = scopedKey(caller.businessId, caller.idempotencyKey);
  const done = await store.findByKey(key);
  if (done) return toDto(done);
  const account = await callRpc(
    nc,
    Rpc.accountsResolve,
    { bankCode: body.bankCode, accountNumber: body.accountNumber },
    trace,
  );
  const { pricing, quote } = await verifyAndPrice(deps, caller, body, trace);
  const base = baseDoc(caller, body.chain, body.mint);
  return usingQuote(deps.quotes, quote, base._id, async () => {
    const { address } = await callRpc(
      nc,
      Rpc.addressAllocate,
      { chain: body.chain, purpose: "offramp", ref: base._id.toHexString(), mints: [base.mintKey] },
      trace,
    );
    const doc: OrderDoc = {
      ...base,
      transactionType: "OFF_RAMP",
      currency: body.currency,
      recipient: "",
      ...pricing,
      address,
      accountNumber: body.accountNumber,
      accountName: account.accountName,
      bank: account.bankName,
      bankCode: body.bankCode,
      webhookURL: body.webhookURL ?? null,
      description: body.description ?? null,
      ...(key ? { idempotencyKey: key } : {}),
    };
    return toDto(await store.insertOnce(doc));
  });
}

/**
 * Onramp creation: BVN, pricing (with Solana token-account rent when the recipient has none), a virtual
 * account opened for this order alone, and the INIT order that expires unpaid after the TTL.
 */
export async function createOnramp(
  deps: CreateDeps,
  caller: Caller,
  body: OnrampRequest,
  trace: TraceContext,
): Promise<TransactionDto> {
  const { nc, store, config } = deps;
  const key = scopedKey(caller.businessId, caller.idempotencyKey);
  const done = await store.findByKey(key);
  if (done) return toDto(done);
  const { pricing, quote } = await verifyAndPrice(deps, caller, body, trace);
  const base = baseDoc(caller, body.chain, body.mint);
  return usingQuote(deps.quotes, quote, base._id, async () => {
    const va = await callRpc(
      nc,
      Rpc.virtualAccountOpen,
      {
        ref: base._id.toHexString(),
        currency: body.currency,
        fiatAmount: pricing.fiatAmount,
        holder: config.VIRTUAL_ACCOUNT_HOLDER,
      },
      trace,
    );
    const doc: OrderDoc = {
      ...base,
      transactionType: "ON_RAMP",
      currency: body.currency,
      recipient: body.recipient,
      ...pricing,
      accountNumber: va.accountNumber,
      accountName: va.accountName,
      bank: va.bank,
      webhookURL: body.webhookURL ?? null,
      userExternalId: body.userExternalId ?? null,
      expiresAt: new Date(base.createdAt.getTime() + config.ONRAMP_UNPAID_TTL_SECONDS * 1000),
      ...(key ? { idempotencyKey: key } : {}),
    };
    return toDto(await store.insertOnce(doc));
  });
}
