import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  type Chain,
  type ConsoleListQuery,
  type CreatePaymentRequest,
  type Currency,
  Events,
  normalizeAddress,
  type PaymentDto,
  type PaymentPage,
  type PaymentStatus,
  Rpc,
} from "@ramp/contracts";
import {
  type Claims,
  callRpc,
  createStateStore,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  pageById,
  type Stoppable,
  type TraceContext,
} from "@ramp/runtime";
import { Decimal } from "decimal.js";
import { type Db, ObjectId } from "mongodb";
import type { OrdersConfig } from "../config.ts";
import {
  ensureKeyIndex,
  findByKey,
  idForKey,
  insertOnce,
  type Keyed,
  scopedKey,
} from "../idempotency/once-per-key.ts";
import type { FundsOutcome, LandedFunds } from "../orders/received-funds.ts";
import { checkOrderBounds, FIAT_DP } from "../pricing/quotes.ts";
import { paymentTotals } from "./payment-fee.ts";

export interface PaymentDoc extends Keyed {
  _id: ObjectId;
  businessId: string;
  apiKeyId: string;
  method: "TOKEN" | "FIAT";
  status: PaymentStatus;
  amount: string;
  fee: string;
  totalAmount: string;
  currency: Currency | null;
  chain: Chain | null;
  mint: string | null;
  mintKey: string | null;
  reference: string | null;
  token: { address: string } | null;
  fiat: { accountNumber: string; accountName: string; bank: string } | null;
  createdAt: Date;
  expiresAt: Date;
  outbox: OutboxEntry[];
}

const num = (v: string) => new Decimal(v).toNumber();

export function paymentDto(p: PaymentDoc): PaymentDto {
  return {
    id: p._id.toHexString(),
    status: p.status,
    method: p.method,
    amount: num(p.amount),
    fee: num(p.fee),
    totalAmount: num(p.totalAmount),
    currency: p.currency,
    chain: p.chain,
    mint: p.mint,
    reference: p.reference,
    createdAt: p.createdAt.toISOString(),
    expiresAt: p.expiresAt.toISOString(),
    ...(p.token && p.chain && p.mint
      ? { token: { address: p.token.address, chain: p.chain, mint: p.mint, amount: num(p.totalAmount) } }
      : {}),
    ...(p.fiat && p.currency
      ? { fiat: { ...p.fiat, amount: num(p.totalAmount), currency: p.currency } }
      : {}),
  };
}

/** Payments collected for a business: AWAITING → SUCCESSFUL when funds cover the total, or EXPIRED. */
export interface Payments {
  init(): Promise<void>;
  create(
    caller: { businessId: string; apiKeyId: string; idempotencyKey?: string | undefined },
    body: CreatePaymentRequest,
    trace: TraceContext,
  ): Promise<PaymentDto>;
  get(id: string, businessId?: string): Promise<PaymentDoc | null>;
  /** The business's payments, newest first. */
  page(businessId: string, page: ConsoleListQuery): Promise<PaymentPage>;
  /** Funds landed for this payment: settles it when this fund is the one that covers it. */
  applyFunds(payment: PaymentDoc, landed: LandedFunds, trace: TraceContext): Promise<FundsOutcome>;
  /** Awaiting payments past their TTL become EXPIRED; a payment settling at the same instant wins or loses whole. */
  expireDue(now: Date): Promise<number>;
  startSweeper(): Stoppable;
}

export function createPayments(deps: {
  db: Db;
  nc: NatsConnection;
  js: JetStreamClient;
  claims: Claims;
  log: Logger;
  config: OrdersConfig;
}): Payments {
  const col = deps.db.collection<PaymentDoc>("payments");

  /** A payment has the order bounds (USD value) and at most its asset's decimals. */
  const checkPaymentBounds = (amount: string, usd: Decimal, decimals: number) =>
    checkOrderBounds(
      { amount: new Decimal(amount), fiatAmount: new Decimal(0), usdcAmount: usd },
      decimals,
      deps.config.ORDER_MIN_USD,
      deps.config.ORDER_MAX_USD,
    );
  const states = createStateStore<PaymentDoc, PaymentStatus>({
    collection: col,
    stateField: "status",
    // A change sets the state alone, and its event reads what the payment was created with.
    decidedBy: [],
    ...deps,
  });

  const payments: Payments = {
    async init() {
      // The expiry sweep's equality: its leading field is what FerretDB can find by index.
      await col.createIndex({ status: 1, expiresAt: 1 });
      await col.createIndex({ businessId: 1, _id: -1 }, { name: "business_list" });
      await ensureKeyIndex(col);
    },
    async create(
      {
        idempotencyKey,
        ...caller
      }: { businessId: string; apiKeyId: string; idempotencyKey?: string | undefined },
      body: CreatePaymentRequest,
      trace: TraceContext,
    ): Promise<PaymentDto> {
      const key = scopedKey(caller.businessId, idempotencyKey);
      const done = await findByKey(col, key);
      if (done) return paymentDto(done);
      const _id = idForKey(key);
      const ref = _id.toHexString();
      const createdAt = new Date();
      const base = {
        _id,
        ...caller,
        status: "AWAITING" as const,
        reference: body.reference ?? null,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + deps.config.PAYMENT_TTL_SECONDS * 1000),
        outbox: [],
        ...(key ? { idempotencyKey: key } : {}),
      };
      let doc: PaymentDoc;
      if (body.method === "TOKEN") {
        const chain = body.chain as Chain;
        const mint = body.mint as string;
        const token = await callRpc(deps.nc, Rpc.tokenInfo, { chain, mint }, trace);
        checkPaymentBounds(body.amount, new Decimal(body.amount).mul(token.usdPrice), token.decimals);
        const t = paymentTotals(body.amount, deps.config.PAYMENT_FEE_BPS, token.decimals);
        const mintKey = normalizeAddress(chain, mint);
        const { address } = await callRpc(
          deps.nc,
          Rpc.addressAllocate,
          { chain, purpose: "payment", ref, mints: [mintKey] },
          trace,
        );
        doc = {
          ...base,
          method: "TOKEN",
          amount: t.amount.toString(),
          fee: t.fee.toString(),
          totalAmount: t.totalAmount.toString(),
          currency: null,
          chain,
          mint,
          mintKey,
          token: { address },
          fiat: null,
        };
      } else {
        const currency = body.currency as Currency;
        const rates = await callRpc(
          deps.nc,
          Rpc.ratesGet,
          { businessId: caller.businessId, currency },
          trace,
        );
        // Fiat paid in is valued as an onramp values it: fiat per USD at the onramp rate.
        checkPaymentBounds(body.amount, new Decimal(body.amount).div(rates.onRampRate.rate), FIAT_DP);
        // Amount and fee both at fiat's 2 decimals: the total the payer is told is exactly what settles.
        const t = paymentTotals(body.amount, deps.config.PAYMENT_FEE_BPS, FIAT_DP);
        const va = await callRpc(
          deps.nc,
          Rpc.virtualAccountOpen,
          {
            ref,
            currency,
            fiatAmount: t.totalAmount.toFixed(FIAT_DP),
            holder: deps.config.VIRTUAL_ACCOUNT_HOLDER,
          },
          trace,
        );
        doc = {
          ...base,
          method: "FIAT",
          amount: t.amount.toString(),
          fee: t.fee.toString(),
          totalAmount: t.totalAmount.toString(),
          currency,
          chain: null,
          mint: null,
          mintKey: null,
          token: null,
          fiat: va,
        };
      }
      return paymentDto(await insertOnce(col, doc, states.insert));
    },

    async get(id: string, businessId?: string): Promise<PaymentDoc | null> {
      if (!ObjectId.isValid(id)) return null;
      const doc = await col.findOne({ _id: new ObjectId(id) });
      return doc && (businessId === undefined || doc.businessId === businessId) ? doc : null;
    },

    page: (businessId, page) => pageById(col, { businessId }, page, paymentDto),

    async applyFunds(p, landed, trace) {
      const id = p._id.toHexString();
      if (p.method === "TOKEN") {
        const chain = landed.chain;
        if (!chain || chain.chain !== p.chain || normalizeAddress(chain.chain, chain.mint) !== p.mintKey)
          return "wrong-token";
      } else if (landed.chain) {
        return "wrong-token";
      }
      if (new Decimal(landed.amount).lt(p.totalAmount)) {
        deps.log.warn(
          { paymentId: id, landed: landed.amount, expected: p.totalAmount },
          "payment underfunded; left awaiting",
        );
        return "underfunded";
      }
      const settled = await states.transition({
        id: p._id,
        from: "AWAITING",
        to: "SUCCESSFUL",
        cause: landed.id,
        seen: p,
        events: (next) => [
          outboxEntry(
            Events.paymentSettled,
            { businessId: next.businessId, apiKeyId: next.apiKeyId, payment: paymentDto(next) },
            `payment:${id}:SUCCESSFUL`,
            trace,
          ),
        ],
      });
      if (!settled) return (await payments.get(id))?.status === "EXPIRED" ? "late" : "surplus";
      deps.log.info({ paymentId: id, requestId: trace.requestId }, "payment settled");
      return "applied";
    },

    async expireDue(now) {
      const due = await col
        .find({ status: "AWAITING", expiresAt: { $lte: now } }, { projection: { _id: 1 } })
        .sort({ expiresAt: 1 })
        .limit(200)
        .toArray();
      let expired = 0;
      for (const { _id } of due) {
        const done = await states.transition({ id: _id, from: "AWAITING", to: "EXPIRED", cause: "expiry" });
        if (done?.status === "EXPIRED") expired++;
      }
      return expired;
    },

    startSweeper: () => states.startSweeper(),
  };
  return payments;
}
