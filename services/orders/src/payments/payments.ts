import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  type Chain,
  type CreatePaymentRequest,
  type Currency,
  Events,
  normalizeAddress,
  type PaymentDto,
  type PaymentStatus,
  Rpc,
} from "@ramp/contracts";
import {
  callRpc,
  flushOutbox,
  type Logger,
  type OutboxEntry,
  outboxEntry,
  type TraceContext,
} from "@ramp/runtime";
import { Decimal } from "decimal.js";
import { type Db, ObjectId } from "mongodb";
import type { OrdersConfig } from "../config.ts";
import { findByKey, insertOnce, type Keyed, scopedKey } from "../idempotency/once-per-key.ts";
import { paymentTotals } from "./payment-fee.ts";

interface PaymentDoc extends Keyed {
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

/** Payments collected for a business (spec §4.8, DESIGN §5/§9): AWAITING → SUCCESSFUL, or EXPIRED. */
export function createPayments(deps: {
  db: Db;
  nc: NatsConnection;
  js: JetStreamClient;
  log: Logger;
  config: OrdersConfig;
}) {
  const col = deps.db.collection<PaymentDoc>("payments");

  const settle = async (id: ObjectId, trace: TraceContext) => {
    const current = await col.findOne({ _id: id, status: "AWAITING" });
    if (!current) return;
    const settled: PaymentDoc = { ...current, status: "SUCCESSFUL" };
    const event = outboxEntry(
      Events.paymentSettled,
      { businessId: current.businessId, apiKeyId: current.apiKeyId, payment: paymentDto(settled) },
      `payment:${id.toHexString()}:SUCCESSFUL`,
      trace,
    );
    const done = await col.updateOne(
      { _id: id, status: "AWAITING" },
      { $set: { status: "SUCCESSFUL" }, $push: { outbox: event } },
    );
    if (done.modifiedCount)
      deps.log.info({ paymentId: id.toHexString(), requestId: trace.requestId }, "payment settled");
    await flushOutbox(deps.js, col, id, deps.log);
  };

  return {
    collection: col,
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
      const _id = new ObjectId();
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
        const t = paymentTotals(String(body.amount), deps.config.PAYMENT_FEE_BPS, token.decimals);
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
        const t = paymentTotals(String(body.amount), deps.config.PAYMENT_FEE_BPS, 2);
        const va = await callRpc(
          deps.nc,
          Rpc.virtualAccountOpen,
          { ref, currency, fiatAmount: t.totalAmount.toFixed(2), holder: deps.config.VIRTUAL_ACCOUNT_HOLDER },
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
      return paymentDto(await insertOnce(col, doc, (d) => col.insertOne(d)));
    },

    async get(id: string, businessId?: string): Promise<PaymentDoc | null> {
      if (!ObjectId.isValid(id)) return null;
      const doc = await col.findOne({ _id: new ObjectId(id) });
      return doc && (businessId === undefined || doc.businessId === businessId) ? doc : null;
    },

    /** Funds for a payment landed: settles it when they cover `totalAmount` in the right asset. */
    async onFunds(
      id: string,
      landed: { amount: string; mint?: string; chain?: Chain },
      trace: TraceContext,
    ): Promise<boolean> {
      const p = await this.get(id);
      if (!p) return false;
      if (
        p.method === "TOKEN" &&
        landed.chain &&
        landed.mint &&
        normalizeAddress(landed.chain, landed.mint) !== p.mintKey
      )
        return true;
      if (new Decimal(landed.amount).lt(p.totalAmount)) {
        deps.log.warn(
          { paymentId: id, landed: landed.amount, expected: p.totalAmount },
          "payment underfunded; left awaiting",
        );
        return true;
      }
      await settle(p._id, trace);
      if (p.method === "FIAT")
        await callRpc(deps.nc, Rpc.virtualAccountClose, { ref: id }, trace).catch((err) =>
          deps.log.warn({ err, paymentId: id }, "virtual account close failed"),
        );
      return true;
    },

    async expireDue(): Promise<number> {
      const r = await col.updateMany(
        { status: "AWAITING", expiresAt: { $lte: new Date() } },
        { $set: { status: "EXPIRED" } },
      );
      return r.modifiedCount;
    },
  };
}
export type Payments = ReturnType<typeof createPayments>;
