import { creditedFunds, isTerminal, missingHooks, type OrderFacts, type Problem } from "./audit.ts";
import { ORDER_KINDS } from "./order-mix.ts";

const COLUMNS = [
  ["kind", "order kind"],
  ["orders", "orders planned"],
  ["final", "reached the expected terminal status"],
  ["stuck", "not terminal when the run ended"],
  ["deposits", "deposits that entered (banking / chain-watcher)"],
  ["recorded", "of them recorded by orders (received_funds)"],
  ["credited", "orders credited exactly once"],
  ["dup-cred", "orders credited more than once"],
  ["payouts", "banking payouts (offramps past INIT)"],
  ["sends", "chain-watcher transfers (onramps past INIT)"],
  ["hooks", "status changes owed a webhook"],
  ["received", "of them received and verified"],
  ["missing", "owed but never received"],
  ["extra", "webhooks received more than once (at-least-once)"],
] as const;

type Row = Record<(typeof COLUMNS)[number][0], string | number>;

function rowOf(kind: string, facts: OrderFacts[]): Row {
  const sum = (f: (x: OrderFacts) => number) => facts.reduce((n, x) => n + f(x), 0);
  const applied = creditedFunds;
  const owed = (x: OrderFacts) => x.changes.length;
  return {
    kind,
    orders: facts.length,
    final: facts.filter((x) => x.status === x.order.plan.expected).length,
    stuck: facts.filter((x) => !isTerminal(x.status)).length,
    deposits: sum((x) => x.deposits.length),
    recorded: sum((x) => x.deposits.filter((d) => x.funds.some((r) => r._id === d)).length),
    credited: facts.filter((x) => applied(x) === 1).length,
    "dup-cred": facts.filter((x) => applied(x) > 1).length,
    payouts: sum((x) => x.payouts.length),
    sends: sum((x) => x.transfers.length),
    hooks: sum(owed),
    received: sum((x) => owed(x) - missingHooks(x).length),
    missing: sum((x) => missingHooks(x).length),
    extra: sum((x) => x.hooks.length - new Set(x.hooks).size),
  };
}

/** One row per order kind and a total: the counts the fault run is judged on. */
export function countsTable(facts: OrderFacts[]): string {
  const rows = [
    ...ORDER_KINDS.map((k) =>
      rowOf(
        k,
        facts.filter((f) => f.order.plan.kind === k),
      ),
    ),
    rowOf("total", facts),
  ];
  const widths = COLUMNS.map(([c]) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] as number)).join("  ");
  return [
    line(COLUMNS.map(([c]) => c)),
    ...rows.map((r) => line(COLUMNS.map(([c]) => String(r[c])))),
    "",
    ...COLUMNS.slice(1).map(([c, meaning]) => `  ${c}: ${meaning}`),
  ].join("\n");
}

export function problemsText(problems: Problem[], facts: OrderFacts[], logLines: (id: string) => string[]) {
  const byOrder = new Map<string, Problem[]>();
  for (const p of problems) {
    const key = p.orderId ?? "-";
    byOrder.set(key, [...(byOrder.get(key) ?? []), p]);
  }
  const out: string[] = [];
  for (const [id, ps] of byOrder) {
    const f = facts.find((x) => x.order.id === id);
    const head = f
      ? `${f.order.plan.kind} #${f.order.plan.index} ${id}: status ${f.status}, changes [${f.changes.join(" → ")}], ` +
        `deposits ${f.deposits.length}, funds [${f.funds.map((r) => r.outcome).join(",")}], ` +
        `payouts [${f.payouts.map((p) => p.status).join(",")}], transfers [${f.transfers.map((t) => (t.reason ? `${t.status}: ${t.reason}` : t.status)).join(",")}], ` +
        `hooks [${f.hooks.join(",")}]`
      : "the system as a whole";
    out.push(head, ...ps.map((p) => `  ${p.kind}: ${p.what}`), ...(id === "-" ? [] : logLines(id)));
  }
  return out.join("\n");
}
