import { signedInOperator } from "../support/console-operator.ts";
import type { ProcessStack } from "../support/process-stack.ts";
import { SERVICE_NAMES } from "../support/process-stack.ts";
import { receiver } from "../support/webhook-receiver.ts";
import { type ApiAnswer, apiClient, isOutage } from "./api-client.ts";
import { gatherFacts, isTerminal, judge, logLinesAbout, type OrderFacts, type Problem } from "./audit.ts";
import { type ChaosLog, runChaos } from "./chaos.ts";
import { type DriverCounters, driveOrder, newCounters, type PayOnChain, readStatus } from "./drive-order.ts";
import { type OutboxLeftover, outboxLeftovers, unknownOrders } from "./ledgers.ts";
import { type EvmMix, planOrders, seeded } from "./order-mix.ts";
import {
  auditRefunds,
  type DrivenRefund,
  driveRefund,
  type RefundCounters,
  type RefundDriveContext,
  refundPlans,
} from "./refunds.ts";
import { countsTable, problemsText } from "./report.ts";

export interface FaultRunOptions {
  stack: ProcessStack;
  adminToken: string;
  orders: number;
  /** How long services are being killed; orders are started over the first three quarters of it. */
  chaosMs: number;
  killEveryMs: number;
  natsRestarts: number;
  /** After the chaos, how long every order gets to finish (and every webhook to arrive) at most. */
  settleMs: number;
  seed?: number;
  log?: (line: string) => void;
  /** A real EVM chain in the mix (see `EvmMix`) and how the driver pays on it. */
  evm?: EvmMix & { pay: PayOnChain };
  /**
   * With the EVM chain: the operator also refunds money while services die (see refunds.ts); the
   * refund addresses' balances are read on that chain.
   */
  refunds?: { balanceOf: (address: string) => Promise<bigint> };
}

export interface FaultRunResult {
  counts: Record<Problem["kind"], number>;
  problems: Problem[];
  facts: OrderFacts[];
  chaos: ChaosLog;
  driver: DriverCounters;
  /** The refunds the operator asked for (empty without `refunds`). */
  refunds: DrivenRefund[];
  outboxLeft: OutboxLeftover[];
  durationMs: number;
  /** The table, the run's story and every problem with its order's log lines: print it. */
  report: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** Outbox sweepers run every 2 s; anything still there this long after the orders finished stays. */
const OUTBOX_GRACE_MS = 15_000;

/** Leftover outbox documents grouped by service collection, with one document's entries as a sample. */
function outboxProblems(left: OutboxLeftover[]): Problem[] {
  const groups = new Map<string, OutboxLeftover[]>();
  for (const l of left) {
    const where = l.doc.slice(0, l.doc.indexOf(":"));
    groups.set(where, [...(groups.get(where) ?? []), l]);
  }
  return [...groups].map(([where, docs]) => ({
    kind: "outbox",
    orderId: null,
    what:
      `${docs.length} document(s) in ${where} still hold ${docs.reduce((n, d) => n + d.msgIds.length, 0)} ` +
      `outbox entries, e.g. ${docs[0]?.doc} [${docs[0]?.msgIds.join(", ")}]`,
  }));
}

async function setupCall(call: () => Promise<ApiAnswer>, want: number, what: string): Promise<ApiAnswer> {
  for (let i = 0; i < 60; i++) {
    const r = await call();
    if (r.status === want) return r;
    if (!isOutage(r.status)) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    await sleep(500);
  }
  throw new Error(`${what}: no answer`);
}

/**
 * The fault run: N mixed orders driven through the public API while services are `kill -9`ed and
 * NATS restarts, then every order is checked to have finished once, completely, with its webhooks —
 * from the API, the receiver, and each service's own database.
 */
export async function runFault(o: FaultRunOptions): Promise<FaultRunResult> {
  const log = o.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const t0 = Date.now();
  const { stack } = o;
  const admin = apiClient(stack.gatewayUrls, { authorization: `Bearer ${o.adminToken}` });
  await setupCall(() => admin.put("/admin/v1/rates/NGN", { onRamp: 1650, offRamp: 1600 }), 200, "set rate");
  const biz = (
    await setupCall(() => admin.post("/admin/v1/businesses", { name: "Fault Co" }), 201, "business")
  ).body as { id: string; apiKey: string; webhookSecret: string };
  const hooks = await receiver();
  hooks.setSecret(biz.webhookSecret);
  const api = apiClient(stack.gatewayUrls, { "x-api-key": biz.apiKey });
  await setupCall(
    () =>
      api.patch("/pub/v2/webhook", {
        rampWebhookURL: `${hooks.url}/ramp`,
        paymentWebhookURL: `${hooks.url}/payments`,
      }),
    200,
    "webhook config",
  );

  const plans = planOrders(o.orders, seed, o.evm);
  const refundsOf = o.refunds && o.evm ? refundPlans(plans) : new Map();
  const refundCounters: RefundCounters = { clicks: 0, outageResends: 0 };
  const money: RefundDriveContext | null =
    refundsOf.size > 0 && o.evm
      ? {
          ops: apiClient(
            stack.gatewayUrls,
            await signedInOperator(stack.gatewayUrl, `ops-${seed}@fault.example`, "operator", o.adminToken),
          ),
          api,
          nc: await stack.connectAs("orders"),
          pay: o.evm.pay,
          counters: refundCounters,
          deadline: 0,
        }
      : null;
  log(`fault run ${stack.id}: ${o.orders} orders, seed ${seed}, logs in ${stack.runDir}`);
  const tChaos = Date.now();
  const deadline = tChaos + o.chaosMs + o.settleMs;
  if (money) money.deadline = deadline;
  const driver = newCounters();
  const refunding: Promise<DrivenRefund>[] = [];
  const spacing = (o.chaosMs * 0.75) / Math.max(1, o.orders);
  const chaos = runChaos({
    stack,
    durationMs: o.chaosMs,
    killEveryMs: o.killEveryMs,
    natsRestartsAtMs: Array.from(
      { length: o.natsRestarts },
      (_, i) => ((i + 1) * o.chaosMs) / (o.natsRestarts + 1),
    ),
    rand: seeded(seed ^ 0x5eed),
    log,
  });
  const driving = Promise.all(
    plans.map(async (plan) => {
      await sleep(plan.index * spacing);
      const d = await driveOrder({ api, stack, counters: driver, deadline, payOnChain: o.evm?.pay }, plan);
      const refund = refundsOf.get(plan.index);
      // The refund runs on while the next orders are driven: during the chaos for most.
      if (money && refund) refunding.push(driveRefund(money, { ...refund, order: d }));
      return d;
    }),
  );
  const chaosLog = await chaos;
  const tCalm = Date.now();
  const kills = Object.values(chaosLog.kills).reduce((a, b) => a + b, 0);
  log(`chaos over after ${secs(tCalm - tChaos)} (${kills} kills); waiting for every order to finish`);
  const driven = await driving;
  log(`every order created and paid ${secs(Date.now() - tChaos)} after the chaos began`);
  const refunds = await Promise.all(refunding);
  if (money) {
    log(`every refund asked ${secs(Date.now() - tChaos)} after the chaos began`);
    await money.nc.close();
  }
  // Every refund asked is sent once, its fund refunded and its exception closed. A refund's answer
  // handled by an orders process killed between marking the fund and closing the exception is
  // redelivered only when its ack wait runs out, so this too is waited for, not read once.
  const refundsSettled = async () =>
    !money ||
    !o.refunds ||
    (await auditRefunds(stack, refunds, refundCounters, o.refunds.balanceOf)).problems.length === 0;

  // Settle: every order terminal, recorded and told (bounded by the deadline), then a short
  // grace for outboxes to drain: sweepers run every few seconds, so what is left after that stays.
  const statuses = new Map<string, string | null>();
  let facts: OrderFacts[] = [];
  let outboxLeft: OutboxLeftover[] = [];
  let tDone: number | null = null;
  for (;;) {
    await Promise.all(
      driven.map(async (d) => {
        if (d.id && !isTerminal(statuses.get(d.id) ?? null))
          statuses.set(d.id, await readStatus(api, d.plan, d.id));
      }),
    );
    const allTerminal = driven.every((d) => !d.id || isTerminal(statuses.get(d.id) ?? null));
    const late = Date.now() > deadline;
    if (allTerminal || late) {
      facts = await Promise.all(
        driven.map((d) => gatherFacts(stack, d, d.id ? (statuses.get(d.id) ?? null) : null, hooks.got)),
      );
      // Terminal is not the end: a handler killed after settling but before recording is redelivered
      // only when its ack wait runs out. Done means every order is judged clean.
      if (
        tDone === null &&
        allTerminal &&
        facts.every((f) => judge(f).length === 0) &&
        (await refundsSettled())
      ) {
        tDone = Date.now();
        log(
          `every order finished, recorded and told, every refund settled, after ${secs(tDone - tCalm)} of calm`,
        );
      }
      outboxLeft = await outboxLeftovers(stack);
      if (late || (tDone !== null && (outboxLeft.length === 0 || Date.now() - tDone > OUTBOX_GRACE_MS)))
        break;
    }
    await sleep(1_000);
  }
  const tEnd = Date.now();
  await hooks.close();

  const refundAudit =
    money && o.refunds ? await auditRefunds(stack, refunds, refundCounters, o.refunds.balanceOf) : null;
  const orderFacts = facts.filter((f) => f.order.id && !f.order.plan.kind.startsWith("payment"));
  const problems = [
    ...facts.flatMap(judge),
    // An audit that read no status change of any order checked none of their webhooks, payouts or sends.
    ...(orderFacts.length > 0 && orderFacts.every((f) => f.changes.length === 0)
      ? [
          {
            kind: "wrong",
            orderId: null,
            what: "no order's status changes could be read: nothing checked",
          } as Problem,
        ]
      : []),
    ...outboxProblems(outboxLeft),
    ...(refundAudit?.problems ?? []),
    ...chaosLog.failedRestarts.map(
      (r): Problem => ({ kind: "stuck", orderId: null, what: `restart failed: ${r}` }),
    ),
  ];
  const counts = { stuck: 0, duplicated: 0, lost: 0, wrong: 0, outbox: 0 };
  const known = new Set(driven.flatMap((d) => (d.id ? [d.id] : [])));
  const orphans = await unknownOrders(stack, biz.id, known);
  for (const p of problems) counts[p.kind]++;
  const crashes = stack
    .services()
    .map((p) => `${p.name} ${p.crashes}`)
    .join(", ");
  const report = [
    countsTable(facts),
    "",
    `run ${stack.id} (seed ${seed}): ${secs(tEnd - t0)} in all — setup ${secs(tChaos - t0)}, ` +
      `chaos ${secs(tCalm - tChaos)}, settle ${secs(tEnd - tCalm)}${tEnd > deadline ? " (deadline hit)" : ""}; ` +
      `every order finished, recorded and told ${tDone === null ? "never" : `${secs(tDone - tCalm)} after the chaos`}`,
    `kills: ${SERVICE_NAMES.map((n) => `${n} ${chaosLog.kills[n]}`).join(", ")}; ` +
      `nats ${stack.natsNodes > 1 ? `node restarts (of ${stack.natsNodes})` : "restarts"} ${chaosLog.natsRestarts}; ` +
      `kills skipped (every service still booting) ${chaosLog.skipped}`,
    `unasked exits (crashes, restarted): ${crashes}`,
    `restarts that did not come up: ${chaosLog.failedRestarts.length}; boots that exited and were started again: ` +
      `${chaosLog.bootRetries.length}${chaosLog.bootRetries.length ? ` (${chaosLog.bootRetries.join("; ")})` : ""}`,
    `driver: create retries ${driver.createRetries}; deposit calls without an answer ${driver.depositOutages} ` +
      `(entered anyway ${driver.depositsThroughAnyway}, order moved anyway ${driver.depositsMovedAnyway}, ` +
      `sent again ${driver.depositRetries})`,
    `orders the driver never heard of (a create answered by an outage that went through): ${orphans.length}` +
      (orphans.length ? ` (${orphans.join(", ")})` : ""),
    `outbox documents left: ${outboxLeft.length}`,
    ...(refundAudit ? [refundAudit.summary] : []),
    `problems: stuck ${counts.stuck}, duplicated ${counts.duplicated}, lost ${counts.lost}, wrong ${counts.wrong}, ` +
      `outbox ${counts.outbox}`,
    ...(problems.length ? ["", problemsText(problems, facts, (id) => logLinesAbout(stack, id))] : []),
    `logs: ${stack.runDir}`,
  ].join("\n");
  return {
    counts,
    problems,
    facts,
    chaos: chaosLog,
    driver,
    refunds,
    outboxLeft,
    durationMs: tEnd - t0,
    report,
  };
}
