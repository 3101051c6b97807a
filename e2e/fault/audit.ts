import type { ProcessStack } from "../support/process-stack.ts";
import { SERVICE_NAMES } from "../support/process-stack.ts";
import type { Received } from "../support/webhook-receiver.ts";
import type { DrivenOrder } from "./drive-order.ts";
import {
  type FundsRecord,
  fundsRecords,
  payoutsOf,
  sourceDeposits,
  statusPath,
  supersededHooks,
  transfersOf,
} from "./ledgers.ts";

const TERMINAL = new Set(["COMPLETED", "ERROR", "SUCCESSFUL", "EXPIRED"]);
export const isTerminal = (status: string | null) => status !== null && TERMINAL.has(status);

/** Everything known about one order once the run has settled, from the API and each owner's database. */
export interface OrderFacts {
  order: DrivenOrder;
  status: string | null;
  /** Deposits that entered (banking / chain-watcher) vs what orders recorded for the order. */
  deposits: string[];
  funds: FundsRecord[];
  payouts: Array<{ status: string }>;
  transfers: Array<{ status: string; reason?: string | null }>;
  /** Status changes the order made, in order (payments: SUCCESSFUL once settled). */
  changes: string[];
  /** Verified webhook bodies' statuses in arrival order. */
  hooks: string[];
  unverifiedHooks: number;
  superseded: string[];
}

/** `outbox`: a message left in a document's outbox after everything settled (sent or not, never pulled off). */
export type ProblemKind = "stuck" | "duplicated" | "lost" | "wrong" | "outbox";
export interface Problem {
  kind: ProblemKind;
  orderId: string | null;
  what: string;
}

export async function gatherFacts(
  stack: ProcessStack,
  order: DrivenOrder,
  status: string | null,
  received: Received[],
): Promise<OrderFacts> {
  const id = order.id;
  const none: OrderFacts = {
    order,
    status,
    deposits: [],
    funds: [],
    payouts: [],
    transfers: [],
    changes: [],
    hooks: [],
    unverifiedHooks: 0,
    superseded: [],
  };
  if (!id) return none;
  const mine = received.filter((r) => (r.body as { id?: unknown }).id === id);
  const isPayment = order.plan.kind.startsWith("payment");
  return {
    ...none,
    deposits: await sourceDeposits(stack, order.plan, id),
    funds: await fundsRecords(stack, id),
    payouts: order.plan.kind === "offramp" ? await payoutsOf(stack, id) : [],
    transfers: order.plan.kind === "onramp" ? await transfersOf(stack, id) : [],
    changes: isPayment ? (status === "SUCCESSFUL" ? ["SUCCESSFUL"] : []) : await statusPath(stack, id),
    hooks: mine.filter((r) => r.verified === true).map((r) => String((r.body as { status: unknown }).status)),
    unverifiedHooks: mine.filter((r) => r.verified !== true).length,
    superseded: isPayment ? [] : await supersededHooks(stack, id),
  };
}

/**
 * Funds that moved the order: `applied` ones, and an ERROR offramp's applied deposit that was since
 * refunded (its tokens went back to the payer; the record says `refunded`).
 */
export function creditedFunds(f: OrderFacts): number {
  const refundedError = f.order.plan.kind === "offramp" && f.status === "ERROR";
  return f.funds.filter((r) => r.outcome === "applied" || (refundedError && r.outcome === "refunded")).length;
}

/** Every webhook the order is owed, by the rule: each status change once, a superseded one excepted. */
export function missingHooks(f: OrderFacts): string[] {
  const final = f.changes.at(-1);
  return f.changes.filter((s) => !f.hooks.includes(s) && (s === final || !f.superseded.includes(s)));
}

/** What is wrong with one order; an empty list means it finished once, completely, and was told. */
export function judge(f: OrderFacts): Problem[] {
  const id = f.order.id;
  const out: Problem[] = [];
  const add = (kind: ProblemKind, what: string) => out.push({ kind, orderId: id, what });
  if (f.order.failure) add("stuck", `driver: ${f.order.failure}`);
  if (!id) return out;
  const { plan } = f.order;
  if (!isTerminal(f.status)) add("stuck", `status ${f.status ?? "unreadable"}, not terminal`);
  else if (f.status !== plan.expected) add("wrong", `ended ${f.status}, expected ${plan.expected}`);

  const recorded = new Set(f.funds.map((r) => r._id));
  for (const d of f.deposits.filter((d) => !recorded.has(d)))
    add("lost", `deposit ${d} entered but orders never recorded it`);
  const applied = creditedFunds(f);
  if (applied > 1) add("duplicated", `${applied} deposits credited (outcome "applied")`);
  if (applied === 0 && isTerminal(f.status)) add("lost", "order finished without a credited deposit");

  if (plan.kind === "offramp" && f.changes.includes("PROCESSING")) {
    const want = f.status === "COMPLETED" ? "COMPLETED" : f.status === "ERROR" ? "FAILED" : null;
    if (f.payouts.length === 0) add("lost", "offramp reached PROCESSING but banking holds no payout");
    else if (want && f.payouts[0]?.status !== want)
      add("wrong", `payout ${f.payouts[0]?.status} but order ${f.status}`);
  }
  if (plan.kind === "onramp" && f.changes.includes("PROCESSING")) {
    if (f.transfers.length === 0)
      add("lost", "onramp reached PROCESSING but chain-watcher holds no transfer");
    else if (f.status === "COMPLETED" && f.transfers[0]?.status !== "confirmed")
      add("wrong", `transfer ${f.transfers[0]?.status} but order COMPLETED`);
  }

  // The audit of webhooks, payouts and sends stands on the status path: one that does not end where the
  // order did means the audit could not read the order's exits, and checked nothing of it.
  const isOrder = plan.kind === "onramp" || plan.kind === "offramp";
  if (isOrder && isTerminal(f.status) && f.changes.at(-1) !== f.status)
    add("wrong", `status path [${f.changes.join(" → ")}] does not reach ${f.status}: its exits went unread`);
  for (const s of missingHooks(f)) add("lost", `webhook for ${s} never received`);
  if (f.unverifiedHooks > 0) add("wrong", `${f.unverifiedHooks} webhook(s) failed signature verification`);
  // A receiver's view only moves forward: nothing older may arrive after the final status did.
  const finalAt = f.hooks.indexOf(f.changes.at(-1) ?? "");
  const stale = finalAt < 0 ? [] : f.hooks.slice(finalAt + 1).filter((s) => s !== f.changes.at(-1));
  if (stale.length > 0) add("wrong", `stale webhook(s) ${stale.join(",")} after the final status`);
  return out;
}

/** Log lines of every service that mention the order, for the report of a problem order. */
export function logLinesAbout(stack: ProcessStack, id: string, perService = 6): string[] {
  return SERVICE_NAMES.flatMap((name) =>
    stack.replicasOf(name).flatMap((p) =>
      p
        .logTail(100_000)
        .filter((l) => l.includes(id))
        .slice(-perService)
        .map((l) => `    ${p.name}: ${l.slice(0, 400)}`),
    ),
  );
}
