import type { NatsConnection } from "@nats-io/transport-node";
import {
  type Chain,
  type Currency,
  type ReconciliationDto,
  type ReconciliationMismatch,
  type ReconciliationRow,
  Rpc,
} from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import { type Db, ObjectId } from "mongodb";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { ReceivedFundsDoc } from "../orders/received-funds.ts";
import type { ExceptionDoc } from "./exceptions-store.ts";
import { refundableFundsKey } from "./raised-here.ts";
import { REFUND_PREFIX, type RefundDoc, refundAttemptOf } from "./refunds.ts";

const BATCH = 500;

interface Totals {
  currency: Currency | null;
  chain: Chain | null;
  ordersCompleted: number;
  fiatIn: Decimal;
  fiatOut: Decimal;
  tokensIn: Decimal;
  tokensOut: Decimal;
  feesEarned: Decimal;
  refunds: number;
  fiatRefunded: Decimal;
  tokensRefunded: Decimal;
}

const zero = new Decimal(0);
const blank = (currency: Currency | null, chain: Chain | null): Totals => ({
  currency,
  chain,
  ordersCompleted: 0,
  fiatIn: zero,
  fiatOut: zero,
  tokensIn: zero,
  tokensOut: zero,
  feesEarned: zero,
  refunds: 0,
  fiatRefunded: zero,
  tokensRefunded: zero,
});

type OrderAmounts = Pick<
  OrderDoc,
  "transactionType" | "currency" | "chain" | "fiatAmount" | "amount" | "fee"
>;
type RefundAmounts = Pick<RefundDoc, "currency" | "chain" | "amount">;

/** The day's rows per currency and chain, from its completed orders and sent refunds (decimal sums). */
export function dayTotals(orders: OrderAmounts[], refunds: RefundAmounts[]): ReconciliationRow[] {
  const rows = new Map<string, Totals>();
  const row = (currency: Currency | null, chain: Chain | null) => {
    const key = `${currency ?? ""}|${chain ?? ""}`;
    const r = rows.get(key) ?? blank(currency, chain);
    rows.set(key, r);
    return r;
  };
  for (const o of orders) {
    const r = row(o.currency, o.chain);
    r.ordersCompleted++;
    r.feesEarned = r.feesEarned.plus(o.fee);
    if (o.transactionType === "ON_RAMP") {
      r.fiatIn = r.fiatIn.plus(o.fiatAmount);
      r.tokensOut = r.tokensOut.plus(o.amount);
    } else {
      r.tokensIn = r.tokensIn.plus(o.amount);
      r.fiatOut = r.fiatOut.plus(o.fiatAmount);
    }
  }
  for (const f of refunds) {
    const r = row(f.currency, f.chain);
    r.refunds++;
    if (f.chain) r.tokensRefunded = r.tokensRefunded.plus(f.amount);
    else r.fiatRefunded = r.fiatRefunded.plus(f.amount);
  }
  const text = (d: Decimal) => d.toFixed();
  return [...rows.values()]
    .sort((a, b) => `${a.currency}|${a.chain}`.localeCompare(`${b.currency}|${b.chain}`))
    .map((r) => ({
      ...r,
      fiatIn: text(r.fiatIn),
      fiatOut: text(r.fiatOut),
      tokensIn: text(r.tokensIn),
      tokensOut: text(r.tokensOut),
      feesEarned: text(r.feesEarned),
      fiatRefunded: text(r.fiatRefunded),
      tokensRefunded: text(r.tokensRefunded),
    }));
}

const chunks = <T>(xs: T[]) =>
  Array.from({ length: Math.ceil(xs.length / BATCH) }, (_, i) => xs.slice(i * BATCH, (i + 1) * BATCH));

/**
 * One UTC day's books. Everything read is that day's: orders completed in it, refunds sent in it,
 * funds received in it, payouts banking created in it (each through an index on its time), and
 * what the checks look up for those by id. Other services' records come through their subjects.
 */
export function createReconciliation(deps: { db: Db; nc: NatsConnection }) {
  const orders = deps.db.collection<OrderDoc>("orders");
  const funds = deps.db.collection<ReceivedFundsDoc>("received_funds");
  const refunds = deps.db.collection<RefundDoc>("refunds");
  const exceptions = deps.db.collection<ExceptionDoc>("exceptions");

  return {
    async init() {
      await orders.createIndex({ status: 1, "statusTimes.COMPLETED": 1 }, { name: "completed_by_day" });
      await funds.createIndex({ receivedAt: 1 }, { name: "funds_by_day" });
    },

    async day(date: string, trace: TraceContext): Promise<ReconciliationDto> {
      const from = new Date(`${date}T00:00:00.000Z`);
      const to = new Date(from.getTime() + 86_400_000);
      const span = { $gte: from, $lt: to };
      const completed = await orders
        .find({ status: "COMPLETED", "statusTimes.COMPLETED": span })
        .project<OrderDoc>({ transactionType: 1, currency: 1, chain: 1, fiatAmount: 1, amount: 1, fee: 1 })
        .toArray();
      const sent = await refunds.find({ state: "sent", sentAt: span }).toArray();
      const mismatches: ReconciliationMismatch[] = [];
      const ids = (type: OrderDoc["transactionType"]) =>
        completed.filter((o) => o.transactionType === type).map((o) => o._id.toHexString());

      for (const batch of chunks(ids("OFF_RAMP"))) {
        const found = await funds
          .find({ orderId: { $in: batch }, outcome: { $in: ["applied", "refunded"] } })
          .project<{ orderId: string }>({ orderId: 1 })
          .toArray();
        const paid = new Set(found.map((f) => f.orderId));
        for (const id of batch.filter((i) => !paid.has(i)))
          mismatches.push({
            kind: "offramp-without-deposit",
            ref: id,
            detail: "completed offramp with no applied deposit",
          });
      }

      for (const batch of chunks(ids("ON_RAMP"))) {
        const statuses = await callRpc(deps.nc, Rpc.transfersStatus, { requestIds: batch }, trace);
        const confirmed = new Set(statuses.filter((s) => s.status === "confirmed").map((s) => s.requestId));
        for (const id of batch.filter((i) => !confirmed.has(i))) {
          const seen = statuses.find((s) => s.requestId === id);
          mismatches.push({
            kind: "onramp-without-transfer",
            ref: id,
            detail: seen
              ? `completed onramp whose transfer is ${seen.status}`
              : "completed onramp with no transfer",
          });
        }
      }

      let cursor: string | undefined;
      do {
        const page = await callRpc(
          deps.nc,
          Rpc.payoutsOfDay,
          { from: from.toISOString(), to: to.toISOString(), limit: BATCH, ...(cursor ? { cursor } : {}) },
          trace,
        );
        const forRefunds = page.data.filter((p) => p.id.startsWith(REFUND_PREFIX));
        const forOrders = page.data.filter((p) => !p.id.startsWith(REFUND_PREFIX));
        const knownOrders = new Set(
          (
            await orders
              .find({
                _id: { $in: forOrders.filter((p) => ObjectId.isValid(p.id)).map((p) => new ObjectId(p.id)) },
              })
              .project<{ _id: ObjectId }>({ _id: 1 })
              .toArray()
          ).map((o) => o._id.toHexString()),
        );
        const knownRefunds = new Set(
          (
            await refunds
              .find({ _id: { $in: forRefunds.map((p) => refundAttemptOf(p.id)?.fundId ?? "") } })
              .project<{ _id: string }>({ _id: 1 })
              .toArray()
          ).map((r) => r._id),
        );
        for (const p of page.data)
          if (!knownOrders.has(p.id) && !knownRefunds.has(refundAttemptOf(p.id)?.fundId ?? ""))
            mismatches.push({
              kind: "payout-without-order",
              ref: p.id,
              detail: `payout ${p.status} of ${p.fiatAmount} ${p.currency} (${p.reference ?? "no reference"}) for no known order or refund`,
            });
        cursor = page.nextCursor || undefined;
      } while (cursor);

      const loose = await funds
        .find({ receivedAt: span, outcome: { $nin: ["applied", "refunded"] } })
        .project<{ _id: string; outcome: string }>({ _id: 1, outcome: 1 })
        .toArray();
      for (const batch of chunks(loose)) {
        const open = await exceptions
          .find({ key: { $in: batch.map((f) => refundableFundsKey(f._id)) }, status: "open" })
          .project<{ key: string }>({ key: 1 })
          .toArray();
        const tracked = new Set(open.map((e) => e.key));
        for (const f of batch.filter((x) => !tracked.has(refundableFundsKey(x._id))))
          mismatches.push({
            kind: "fund-unaccounted",
            ref: f._id,
            detail: `${f.outcome} fund neither applied, refunded nor open in the exceptions queue`,
          });
      }

      return { date, rows: dayTotals(completed, sent), mismatches };
    },
  };
}
