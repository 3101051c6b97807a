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
import {
  checkBusinessFee,
  checkOrderBounds,
  type Quote,
  quoteOfframp,
  quoteOnramp,
  toStored,
} from "../quotes/quotes.ts";
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

/** An order's own webhookURL obeys the rule the dispatcher applies to saved webhook URLs. */
function checkWebhookUrl(url: string | undefined, allowPrivate: boolean): void {
  if (url !== undefined && !isAllowedWebhookUrl(url, allowPrivate)) throw badRequest(NOT_PUBLIC_WEBHOOK_URL);
}

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
  checkWebhookUrl(body.webhookURL, config.WEBHOOK_ALLOW_PRIVATE);
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
  const fee = body.businessUSDCFee ?? "0";
  const input = {
    amount: body.amount,
    fiatAmount: body.fiatAmount,
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
  };
  await store.insert(doc);
  return toDto(doc);
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
  };
  await store.insert(doc);
  return toDto(doc);
}
