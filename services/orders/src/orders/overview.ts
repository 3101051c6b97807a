import { OrderStatus, type OverviewDto, type Rpc } from "@ramp/contracts";
import { Decimal } from "decimal.js";
import type { z } from "zod";
import type { OrdersStore, OverviewFields } from "./orders-store.ts";

const DAY_MS = 86_400_000;

/** Every UTC day from `from` to `to`, both inclusive, as YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Adds decimal strings by key, exactly. */
function totals<K extends string>(rows: { key: K; amount: string }[]): { key: K; amount: string }[] {
  const sums = new Map<K, Decimal>();
  for (const { key, amount } of rows) sums.set(key, (sums.get(key) ?? new Decimal(0)).plus(amount));
  return [...sums].map(([key, sum]) => ({ key, amount: sum.toFixed() }));
}

/** One day's counts by status and the volume of its completed orders. */
export function summariseDay(date: string, orders: OverviewFields[]): OverviewDto["days"][number] {
  const byStatus = Object.fromEntries(OrderStatus.options.map((s) => [s, 0])) as Record<OrderStatus, number>;
  for (const o of orders) byStatus[o.status] += 1;
  const completed = orders.filter((o) => o.status === "COMPLETED");
  return {
    date,
    byStatus,
    fiat: totals(completed.map((o) => ({ key: o.currency, amount: o.fiatAmount }))).map((t) => ({
      currency: t.key,
      amount: t.amount,
    })),
    tokens: totals(completed.map((o) => ({ key: o.chain, amount: o.usdcAmount }))).map((t) => ({
      chain: t.key,
      amount: t.amount,
    })),
  };
}

/** A few days read at once: each day is one indexed equality, so the read grows with the span, not history. */
const PARALLEL_DAYS = 8;

export async function transactionOverview(
  store: OrdersStore,
  req: z.infer<typeof Rpc.transactionOverview.request>,
): Promise<OverviewDto> {
  const days = daysBetween(req.from, req.to);
  const out: OverviewDto["days"] = [];
  for (let i = 0; i < days.length; i += PARALLEL_DAYS) {
    const batch = days.slice(i, i + PARALLEL_DAYS);
    const read = await Promise.all(batch.map((d) => store.createdOn({ businessId: req.businessId }, d)));
    batch.forEach((d, j) => {
      out.push(summariseDay(d, read[j] ?? []));
    });
  }
  return { from: req.from, to: req.to, days: out };
}
