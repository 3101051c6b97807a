import type { OverviewDto } from "@ramp/contracts";
import { OrderStatus } from "@ramp/contracts/enums";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { api } from "../api.ts";
import { isOperator, useUser } from "../session.tsx";
import { Choice, Empty, ErrorNote, Field, PageHead } from "../ui.tsx";
import { OperatorHealth } from "./overview-health.tsx";

const SPANS = ["7 days", "30 days"] as const;
const STATUS_COLOURS: Record<OrderStatus, string> = {
  INIT: "#94a3b8",
  PROCESSING: "#f59e0b",
  COMPLETED: "#16a34a",
  ERROR: "#dc2626",
};
const SERIES_COLOURS = ["#1d4ed8", "#b45309", "#7c3aed", "#0891b2", "#be185d", "#4d7c0f", "#475569"];

/** The last `days` UTC days, today included. */
function span(days: number) {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const to = new Date();
  return { from: day(new Date(to.getTime() - (days - 1) * 86_400_000)), to: day(to) };
}

/**
 * One row per day, one column per key (a currency or a chain). The numbers only size the bars: the
 * amounts stay the API's decimal strings everywhere else.
 */
function volumes(
  o: OverviewDto,
  pick: (d: OverviewDto["days"][number]) => { key: string; amount: string }[],
) {
  const keys = new Set<string>();
  const rows = o.days.map((d) => {
    const row: Record<string, string | number> = { date: d.date };
    for (const v of pick(d)) {
      keys.add(v.key);
      row[v.key] = Number(v.amount);
    }
    return row;
  });
  return { rows, keys: [...keys] };
}

function Chart(props: {
  title: string;
  rows: Record<string, string | number>[];
  keys: string[];
  stacked?: boolean;
}) {
  const colour = (k: string, i: number) =>
    STATUS_COLOURS[k as OrderStatus] ?? SERIES_COLOURS[i % SERIES_COLOURS.length];
  return (
    <figure className="chart" aria-label={props.title}>
      <figcaption>{props.title}</figcaption>
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={props.rows}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="date" tickFormatter={(d: string) => d.slice(5)} />
          <YAxis width={60} allowDecimals={!props.stacked} />
          <Tooltip />
          <Legend />
          {props.keys.map((k, i) => (
            <Bar
              key={k}
              dataKey={k}
              fill={colour(k, i)}
              isAnimationActive={false}
              {...(props.stacked ? { stackId: "a" } : {})}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

export function OverviewPage() {
  const operator = isOperator(useUser());
  const [length, setLength] = useState<(typeof SPANS)[number] | "">("7 days");
  const [businessId, setBusinessId] = useState("");
  const range = span(length === "30 days" ? 30 : 7);
  const q = { ...range, ...(businessId.trim() ? { businessId: businessId.trim() } : {}) };
  const overview = useQuery({ queryKey: ["overview", q], queryFn: () => api.overview(q) });
  const o = overview.data;
  const counts = o?.days.map((d) => ({ date: d.date, ...d.byStatus })) ?? [];
  const any = counts.some((d) => OrderStatus.options.some((s) => (d[s] ?? 0) > 0));
  const fiat = o && volumes(o, (d) => d.fiat.map((f) => ({ key: f.currency, amount: f.amount })));
  const tokens = o && volumes(o, (d) => d.tokens.map((t) => ({ key: t.chain, amount: t.amount })));

  return (
    <>
      <PageHead title="Overview" />
      {operator && <OperatorHealth />}
      <div className="filters">
        <Choice label="Period" value={length} options={SPANS} onChange={setLength} />
        {operator && (
          <Field label="Business id (empty: every business)" value={businessId} onChange={setBusinessId} />
        )}
      </div>
      <ErrorNote error={overview.error} />
      {overview.isPending && <p role="status">Loading…</p>}
      {o && !any && (
        <Empty>
          No orders from {o.from} to {o.to}. Orders created with an API key show here by day and status.
        </Empty>
      )}
      {o && any && (
        <>
          <Chart title="Orders per day by status" rows={counts} keys={[...OrderStatus.options]} stacked />
          {fiat && fiat.keys.length > 0 && (
            <Chart title="Completed volume per day, fiat by currency" rows={fiat.rows} keys={fiat.keys} />
          )}
          {tokens && tokens.keys.length > 0 && (
            <Chart
              title="Completed volume per day, stablecoin by chain"
              rows={tokens.rows}
              keys={tokens.keys}
            />
          )}
        </>
      )}
    </>
  );
}
