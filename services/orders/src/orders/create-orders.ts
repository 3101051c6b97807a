import type { NatsConnection } from "@nats-io/transport-node";
import {
  AppError,
  badRequest,
  isAllowedWebhookUrl,
  NOT_PUBLIC_WEBHOOK_URL,
  type OfframpRequest,
  type OnrampRequest,
  Rpc,
  type TransactionDto,
} from "@ramp/contracts";
import { allInOrder, callRpc, type RateCache, type TraceContext } from "@ramp/runtime";
import type { OrdersConfig } from "../config.ts";
import { idForKey, scopedKey } from "../idempotency/once-per-key.ts";
import { type Pricing, priceOrder } from "../pricing/price-order.ts";
import { quotedPricing, usingQuote } from "../quotes/locked-quotes.ts";
import type { QuoteDoc, QuoteStore } from "../quotes/quote-store.ts";
import { baseDoc } from "./new-order.ts";
import { type OrderDoc, toDto } from "./order-doc.ts";
import type { OrdersStore } from "./orders-store.ts";

/** A retry whose Idempotency-Key made an onramp order that has since expired unpaid and been deleted. */
export const EXPIRED_KEY = "The order made with this Idempotency-Key has expired; send a new key";

export interface CreateDeps {
  nc: NatsConnection;
  rates: RateCache;
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

/** An order's own webhookURL obeys the rule the dispatcher applies to saved webhook URLs. */
function checkWebhookUrl(url: string | undefined, allowPrivate: boolean): void {
  if (url !== undefined && !isAllowedWebhookUrl(url, allowPrivate)) throw badRequest(NOT_PUBLIC_WEBHOOK_URL);
}

/**
 * The order's numbers (from its quote, or priced now) and its end user, verified when a BVN is given.
 * The quote check, the BVN check and the pricing run together; a failure is reported in that order. The
 * BVN check, which stores the person, waits for the quote check and for `verifyAfter` (the offramp's
 * payout account), so nothing is stored for an order that those refuse.
 */
async function verifyAndPrice(
  deps: CreateDeps,
  caller: Caller,
  body: OnrampRequest | OfframpRequest,
  trace: TraceContext,
  verifyAfter: Promise<unknown> = Promise.resolve(),
): Promise<{ pricing: Pricing & { userId: string | null }; quote: QuoteDoc | null }> {
  const { nc } = deps;
  const onramp = "recipient" in body;
  checkWebhookUrl(body.webhookURL, deps.config.WEBHOOK_ALLOW_PRIVATE);
  const terms = { ...body, type: onramp ? ("ON_RAMP" as const) : ("OFF_RAMP" as const) };
  const { quoteId, bvn } = body;
  const quoteCheck = quoteId
    ? quotedPricing(deps.quotes, caller.businessId, { ...terms, quoteId })
    : Promise.resolve(null);
  const kycCheck = bvn
    ? Promise.all([verifyAfter, quoteCheck]).then(() =>
        callRpc(nc, Rpc.kycVerify, { businessId: caller.businessId, bvn }, trace),
      )
    : Promise.resolve(null);
  const priced = quoteId ? Promise.resolve(null) : priceOrder(deps, caller.businessId, terms, trace);
  const [quoted, kyc, fresh] = await allInOrder(quoteCheck, kycCheck, priced);
  const pricing = quoted?.pricing ?? fresh;
  if (!pricing) throw new Error("an order is either quoted or priced");
  return { pricing: { ...pricing, userId: kyc?.userId ?? null }, quote: quoted?.quote ?? null };
}

/**
 * A creation under an Idempotency-Key, without reading first whether the key made an order already: a
 * key is nearly always new (the gateway replays what it answered before), so a first request saves a
 * read. A repeat runs the same calls again, which is harmless: banking and chain-watcher answer a ref
 * they know with the account or address they gave it, and the order's id comes from the key, so its
 * insert collides and `insertOnce` returns the stored order. When a call fails instead (the rate moved
 * out of bounds, the quote was used by that very order), the stored order is still the answer: a
 * repeat gets its order whatever the calls say now.
 *
 * An order made from a quote is looked up first all the same: `usingQuote` gives the quote back when
 * a call fails, and a repeat must never free the quote its stored order holds.
 */
async function onceForKey(
  store: OrdersStore,
  key: string | undefined,
  quoted: boolean,
  create: () => Promise<TransactionDto>,
): Promise<TransactionDto> {
  const earlier = quoted && key ? await store.findByKey(key) : null;
  if (earlier) return toDto(earlier);
  try {
    return await create();
  } catch (err) {
    const done = key ? await store.findByKey(key) : null;
    if (done) return toDto(done);
    throw err;
  }
}

/**
 * Offramp creation: the payout account is confirmed while the order is priced (nothing is stored for an
 * account that cannot be resolved); then a fresh deposit address in the chain's format, and the INIT order.
 */
export async function createOfframp(
  deps: CreateDeps,
  caller: Caller,
  body: OfframpRequest,
  trace: TraceContext,
): Promise<TransactionDto> {
  const { nc, store } = deps;
  const key = scopedKey(caller.businessId, caller.idempotencyKey);
  return onceForKey(store, key, body.quoteId !== undefined, async () => {
    const resolved = callRpc(
      nc,
      Rpc.accountsResolve,
      { bankCode: body.bankCode, accountNumber: body.accountNumber },
      trace,
    );
    const verified = verifyAndPrice(deps, caller, body, trace, resolved);
    const [account, { pricing, quote }] = await allInOrder(resolved, verified);
    const base = baseDoc(caller, body.chain, body.mint, idForKey(key));
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
  return onceForKey(store, key, body.quoteId !== undefined, async () => {
    const { pricing, quote } = await verifyAndPrice(deps, caller, body, trace);
    const base = baseDoc(caller, body.chain, body.mint, idForKey(key));
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
      ).catch((err: unknown) => {
        // The order's id comes from its key, and expiry closes the account before deleting the order:
        // this key's order expired. Made again it would be stuck, its INIT exit claimed by the expiry.
        if (err instanceof AppError && err.code === "CONFLICT") throw new AppError("CONFLICT", EXPIRED_KEY);
        throw err;
      });
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
  });
}
