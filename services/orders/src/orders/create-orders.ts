import type { NatsConnection } from "@nats-io/transport-node";
import {
  type Chain,
  normalizeAddress,
  type OfframpRequest,
  type OnrampRequest,
  Rpc,
  type TransactionDto,
} from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import type { OrdersConfig } from "../config.ts";
import { findByKey, insertOnce, scopedKey } from "../idempotency/once-per-key.ts";
import { checkOrderBounds, type Quote, quoteOfframp, quoteOnramp, toStored } from "../quotes/quotes.ts";
import { type OrderDoc, toDto } from "./order-doc.ts";
import type { OrdersStore } from "./orders-store.ts";

export interface CreateDeps {
  nc: NatsConnection;
  store: OrdersStore;
  config: OrdersConfig;
}

interface Caller {
  businessId: string;
  apiKeyId: string;
  /** From the request's Idempotency-Key: a retry of a creation that happened returns that order. */
  idempotencyKey?: string | undefined;
}

const opt = (n: number | undefined) => (n === undefined ? undefined : String(n));

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

type Pricing = Pick<
  OrderDoc,
  | "amount"
  | "fiatAmount"
  | "usdcAmount"
  | "rate"
  | "fee"
  | "usdPrice"
  | "decimals"
  | "setupCostUsd"
  | "userId"
>;

/**
 * What both directions do before anything is stored: BVN (spec §4.5 rule 5), the token's decimals and
 * price, the business's rate for the direction, the quote of DESIGN §5 and the order bounds.
 */
async function verifyAndPrice(
  deps: CreateDeps,
  caller: Caller,
  body: OnrampRequest | OfframpRequest,
  trace: TraceContext,
): Promise<Pricing> {
  const { nc, config } = deps;
  const onramp = "recipient" in body;
  const kyc = body.bvn
    ? await callRpc(nc, Rpc.kycVerify, { businessId: caller.businessId, bvn: body.bvn }, trace)
    : null;
  const token = await callRpc(
    nc,
    Rpc.tokenInfo,
    { chain: body.chain, mint: body.mint, ...(onramp ? { recipient: body.recipient } : {}) },
    trace,
  );
  const rates = await callRpc(
    nc,
    Rpc.ratesGet,
    { businessId: caller.businessId, currency: body.currency },
    trace,
  );
  const rate = String((onramp ? rates.onRampRate : rates.offRampRate).rate);
  const fee = String(body.businessUSDCFee ?? 0);
  const input = {
    amount: opt(body.amount),
    fiatAmount: opt(body.fiatAmount),
    rate,
    fee,
    usdPrice: token.usdPrice,
    decimals: token.decimals,
    setupCostUsd: onramp ? token.setupCostUsd : "0",
  };
  const quote = onramp ? quoteOnramp(input) : quoteOfframp(input);
  checkOrderBounds(quote, token.decimals, config.ORDER_MIN_USD, config.ORDER_MAX_USD);
  return {
    ...toStored(quote),
    rate,
    fee,
    usdPrice: token.usdPrice,
    decimals: token.decimals,
    setupCostUsd: input.setupCostUsd,
    userId: kyc?.userId ?? null,
  };
}

/**
 * Spec §4.6: the payout account is confirmed first (nothing is stored for an account that cannot be
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
  const done = await findByKey(store.collection, key);
  if (done) return toDto(done);
  const account = await callRpc(
    nc,
    Rpc.accountsResolve,
    { bankCode: body.bankCode, accountNumber: body.accountNumber },
    trace,
  );
  const pricing = await verifyAndPrice(deps, caller, body, trace);
  const base = baseDoc(caller, body.chain, body.mint);
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
  return toDto(await insertOnce(store.collection, doc, store.insert));
}

/**
 * Spec §4.5: BVN, pricing (with Solana token-account rent when the recipient has none), a virtual
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
  const done = await findByKey(store.collection, key);
  if (done) return toDto(done);
  const pricing = await verifyAndPrice(deps, caller, body, trace);
  const base = baseDoc(caller, body.chain, body.mint);
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
  return toDto(await insertOnce(store.collection, doc, store.insert));
}
