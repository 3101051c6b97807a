import type { BenchFigure } from "./report.ts";

/**
 * Each figure and the floor it is read against: what the same work costs with nothing of ours in it.
 * A count (writes per order, say) has no floor: it is read as it is.
 */
const PAIRS: ReadonlyArray<{ figure: string; floor?: string }> = [
  // From outside: npm start's processes, a load generator of its own (bench/external.ts).
  { figure: "gateway-rates", floor: "hono-floor" },
  // Bare Hono with fixed work added per request: the rate any server doing that much work keeps here.
  { figure: "hono-floor-work-10", floor: "hono-floor" },
  { figure: "hono-floor-work-20", floor: "hono-floor" },
  { figure: "hono-floor-work-40", floor: "hono-floor" },
  // Where the gateway sits on that curve: its CPU per request as work added to bare Hono.
  { figure: "gateway-equivalent-work" },
  // Its p99 is the figure: the latency at half the rate the gateway sustained; the floor is the same
  // generator at the same rate against bare Hono (the p99 the generator and machine allow at all).
  { figure: "gateway-rates-half-load", floor: "hono-floor-half-load" },
  // Each order writes a few documents across the services: several inserts' worth of the database.
  { figure: "offramps-external", floor: "orders-db-insert-floor" },
  // Past capacity: answered/s at fixed offered rates, the shed rate in the label, p99 of the answered.
  { figure: "offramp-offered-1x" },
  { figure: "offramp-offered-2x" },
  { figure: "offramp-offered-3x" },
  // CPU per operation: what one core could sustain, whatever else loads the machine.
  // Load-proof: the ratio of CPU per request is what the rate ratio would be with a core each.
  { figure: "gateway-cpu-per-rate", floor: "hono-cpu-per-request" },
  // Webhooks from outside: the dispatcher and the receiver processes of their own (webhook-dispatch.ts,
  // phase 3); the floor is the same signed POSTs from a bare client process to the same receiver.
  { figure: "webhook-deliveries-external", floor: "webhook-post-floor" },
  { figure: "webhook-dispatcher-cpu-per-delivery", floor: "webhook-post-floor-cpu" },
  { figure: "offramp-cpu-per-order" },
  // In-process (all services and the generator in one process): kept for CPU and counts, not rates.
  { figure: "orders-cpu-per-order" },
  { figure: "webhook-cpu-per-delivery" },
  { figure: "offramp-db-writes" },
  { figure: "onramp-db-writes" },
  { figure: "offramp-db-writes-keyed" },
  { figure: "onramp-db-writes-keyed" },
  { figure: "webhook-db-writes" },
  { figure: "webhook-nats-messages" },
  // Latencies, not rates: here the ratio is how many NATS round trips' worth the deposit's path takes.
  { figure: "deposit-webhook", floor: "deposit-webhook-floor" },
  // The database's CPU per deposit against its own per operation: the ratio is how many operations'
  // worth a deposit costs it (×100), to read beside the operations the services send.
  { figure: "deposit-db-cpu", floor: "deposit-db-floor-cpu" },
  // The deposits' curve below the goal's rate: answered/s (the shed count in the label), webhook p50/p99.
  { figure: "deposit-offered-10" },
  { figure: "deposit-offered-20" },
  { figure: "deposit-offered-30" },
  { figure: "deposit-db-writes-one-at-a-time" },
  { figure: "deposit-db-writes" },
  // The floors themselves, for reading the rows above.
  { figure: "nats-floor" },
  { figure: "db-insert-serial" },
  { figure: "db-insert-parallel" },
];

export interface BenchRow {
  figure: string;
  value: string;
  floor: string;
  floorValue: string;
  /** figure ÷ floor, as a percentage; null when either is missing. */
  ratioPercent: number | null;
}
export interface BenchTable {
  rows: BenchRow[];
}

const fmt = (f: BenchFigure | undefined) => {
  if (!f || !Number.isFinite(f.value)) return "—";
  const p50 = f.p50Ms !== undefined && Number.isFinite(f.p50Ms) ? `, p50 ${f.p50Ms.toFixed(1)} ms` : "";
  const latency =
    f.p99Ms !== undefined && Number.isFinite(f.p99Ms) ? `${p50}, p99 ${f.p99Ms.toFixed(1)} ms` : "";
  // Counts per order are small and their fractions matter (3.01 is not 3).
  const value = f.value < 100 ? f.value.toFixed(2) : Math.round(f.value).toLocaleString("en-US");
  return `${value} ${f.unit}${latency}`;
};

export function buildTable(figures: BenchFigure[]): BenchTable {
  const byKey = new Map(figures.map((f) => [f.key, f]));
  return {
    rows: PAIRS.map(({ figure, floor }) => {
      const f = byKey.get(figure);
      const g = floor === undefined ? undefined : byKey.get(floor);
      const ratio = f && g && g.value > 0 && Number.isFinite(f.value) ? (f.value / g.value) * 100 : null;
      return {
        // A figure its script could not compute in this run (the script says why) keeps its row.
        figure: f?.label ?? `${figure}: not measured in this run`,
        value: fmt(f),
        floor: g?.label ?? floor ?? "—",
        floorValue: fmt(g),
        ratioPercent: ratio === null ? null : Number(ratio.toFixed(1)),
      };
    }),
  };
}

/** A Markdown table, so it pastes into bench/README.md as it is. */
export function formatTable(table: BenchTable): string {
  const lines = [
    "| figure | value | floor (same run) | floor value | ratio |",
    "| --- | --- | --- | --- | --- |",
    ...table.rows.map(
      (r) =>
        `| ${r.figure} | ${r.value} | ${r.floor} | ${r.floorValue} | ${r.ratioPercent === null ? "—" : `${r.ratioPercent} %`} |`,
    ),
  ];
  return lines.join("\n");
}
