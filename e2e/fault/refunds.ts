import type { NatsConnection } from "@nats-io/transport-node";
import { type ExceptionDto, type RefundDto, type RefundRequest, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { parseUnits } from "ethers";
import type { ProcessStack } from "../support/process-stack.ts";
import { type ApiClient, isOutage } from "./api-client.ts";
import { isTerminal, type Problem } from "./audit.ts";
import { type DrivenOrder, type PayOnChain, readStatus } from "./drive-order.ts";
import type { PlannedOrder } from "./order-mix.ts";

/**
 * Money given back while services die: the operator refunds an ERROR offramp's tokens, a surplus
 * paid on chain to a settled offramp's address, and a surplus fiat transfer to a completed onramp's
 * (closed) virtual account, through the console API, clicking more than once and sending again
 * whatever an outage answered.
 */
export type RefundCase = "error-offramp" | "token-surplus" | "fiat-surplus";

/** What the payer sends again after a settled on-chain offramp: distinct from any order's amount. */
export const TOKEN_SURPLUS = "1.37";

export interface RefundPlan {
  case: RefundCase;
  destination: RefundRequest;
}
export interface RefundTarget extends RefundPlan {
  order: DrivenOrder;
}

export interface DrivenRefund extends RefundTarget {
  fundId: string | null;
  /** The surplus payment's tx hash (token-surplus). */
  surplusTx: string | null;
  failure: string | null;
}

export interface RefundCounters {
  /** Refund requests answered 202 (racing clicks and repeats included). */
  clicks: number;
  /** Requests answered by an outage and sent again. */
  outageResends: number;
}

/** One refund address per order, so its balance shows how often it was paid. Not a dev-mnemonic address. */
export const evmRefundAddressOf = (index: number) => `0x${(0xe2f000 + index).toString(16).padStart(40, "0")}`;
/** One payee account per refunded order (the sandbox rail pays any `012…` account). */
const refundAccountOf = (index: number) => `012${String(9_000_000 + index).padStart(7, "0")}`;

/**
 * Which orders of the mix have money to give back: every ERROR offramp (paid on the real chain, so
 * refunded from the treasury), every other on-chain offramp that completed (paid a surplus), and
 * every other onramp on the sandbox rail (paid a fiat surplus after it completed).
 */
export function refundPlans(plans: PlannedOrder[]): Map<number, RefundPlan> {
  const out = new Map<number, RefundPlan>();
  let sandboxOnramps = 0;
  for (const plan of plans) {
    const token = { toAddress: evmRefundAddressOf(plan.index) };
    if (plan.kind === "offramp" && plan.onChain && plan.expected === "ERROR")
      out.set(plan.index, { case: "error-offramp", destination: token });
    else if (plan.kind === "offramp" && plan.onChain)
      out.set(plan.index, { case: "token-surplus", destination: token });
    else if (plan.kind === "onramp" && !plan.onChain && sandboxOnramps++ % 2 === 1)
      out.set(plan.index, {
        case: "fiat-surplus",
        destination: { bankCode: "000013", accountNumber: refundAccountOf(plan.index) },
      });
  }
  return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const brief = (body: unknown) => JSON.stringify(body).slice(0, 200);

export interface RefundDriveContext {
  ops: ApiClient;
  api: ApiClient;
  /** A connection as orders, for the payer's fiat transfer through the sandbox rail's inbound path. */
  nc: NatsConnection;
  pay: PayOnChain;
  counters: RefundCounters;
  deadline: number;
}

/** Calls until something answers that is not an outage, or the deadline passes (then null). */
async function untilAnswered(
  ctx: RefundDriveContext,
  call: () => Promise<{ status: number; body: unknown }>,
) {
  while (Date.now() < ctx.deadline) {
    const r = await call();
    if (!isOutage(r.status)) return r;
    ctx.counters.outageResends++;
    await sleep(500);
  }
  return null;
}

/**
 * Waits for the order to finish, pays the surplus its case calls for, and asks for the refund three
 * times at once and once more later: every ask must be answered 202 with the same refund.
 */
export async function driveRefund(ctx: RefundDriveContext, target: RefundTarget): Promise<DrivenRefund> {
  const out: DrivenRefund = { ...target, fundId: null, surplusTx: null, failure: null };
  const { order } = target;
  const id = order.id;
  if (!id || order.failure) return { ...out, failure: "the order was never driven" };
  let status: string | null = null;
  while (!isTerminal(status)) {
    if (Date.now() > ctx.deadline) return { ...out, failure: `order still ${status} at the deadline` };
    await sleep(1_000);
    status = await readStatus(ctx.api, order.plan, id);
  }
  if (status !== order.plan.expected) return { ...out, failure: `order ended ${status}` };

  let path: string;
  if (target.case === "error-offramp") path = `/console/v1/transactions/${id}/refund`;
  else {
    if (target.case === "token-surplus") out.surplusTx = await ctx.pay(order.address, TOKEN_SURPLUS);
    else {
      // The same transfer however often it is sent: the key names one rail reference.
      for (;;) {
        if (Date.now() > ctx.deadline) return { ...out, failure: "surplus fiat transfer never answered" };
        const sent = await callRpc(ctx.nc, Rpc.sandboxFiatDeposit, {
          ref: id,
          idempotencyKey: `surplus:${id}`,
        })
          .then(() => true)
          .catch(() => false);
        if (sent) break;
        ctx.counters.outageResends++;
        await sleep(500);
      }
    }
    const exception = await (async () => {
      while (Date.now() < ctx.deadline) {
        const r = await ctx.ops.get("/console/v1/exceptions?kind=refundable-funds&status=open&limit=100");
        const found =
          r.status === 200
            ? (r.body as { data: ExceptionDto[] }).data.find((e) => e.orderId === id)
            : undefined;
        if (found) return found;
        await sleep(1_000);
      }
      return undefined;
    })();
    if (!exception?.fundId)
      return { ...out, failure: "no refundable-funds exception opened for the surplus" };
    out.fundId = exception.fundId;
    path = `/console/v1/funds/${exception.fundId}/refund`;
  }

  const ask = async (): Promise<string | null> => {
    const r = await untilAnswered(ctx, () => ctx.ops.post(path, target.destination));
    if (!r) return "no answer before the deadline";
    if (r.status !== 202) return `refund answered ${r.status} ${brief(r.body)}`;
    ctx.counters.clicks++;
    const fundId = (r.body as RefundDto).fundId;
    if (out.fundId && fundId !== out.fundId) return `refund of ${fundId}, asked for ${out.fundId}`;
    out.fundId = fundId;
    return null;
  };
  const first = await Promise.all([ask(), ask(), ask()]);
  await sleep(1_500);
  const again = await ask();
  const failure = [...first, again].find((f) => f !== null) ?? null;
  return { ...out, failure };
}

interface RefundRecord {
  _id: string;
  state: string;
  amount: string;
  attempt?: number;
  destination: RefundRequest;
}

export interface RefundAudit {
  problems: Problem[];
  sent: number;
  summary: string;
}

/**
 * Each refund asked for happened exactly once, with the exact amount, to the destination asked:
 * on chain by the refund address's balance (one address per order), in fiat by the rail's payouts to
 * the refund account; its fund is `refunded`, its exception closed, and no refund is left pending.
 */
export async function auditRefunds(
  stack: ProcessStack,
  refunds: DrivenRefund[],
  counters: RefundCounters,
  balanceOf: (address: string) => Promise<bigint>,
): Promise<RefundAudit> {
  const problems: Problem[] = [];
  const orders = await stack.db("orders");
  const records = orders.collection<RefundRecord>("refunds");
  const funds = orders.collection<{ _id: string; outcome: string; detail: { fiatAmount?: string } }>(
    "received_funds",
  );
  const exceptions = orders.collection<{ fundId?: string; orderId?: string; kind: string; status: string }>(
    "exceptions",
  );
  const payouts = (await stack.db("banking")).collection<{
    _id: string;
    status: string;
    command: { accountNumber: string; fiatAmount: string };
  }>("payouts");
  let sent = 0;
  for (const r of refunds) {
    const orderId = r.order.id;
    const add = (kind: Problem["kind"], what: string) =>
      problems.push({ kind, orderId, what: `refund (${r.case}): ${what}` });
    if (r.failure) add("stuck", `driver: ${r.failure}`);
    if (!r.fundId) continue;
    const record = await records.findOne({ _id: r.fundId });
    const fund = await funds.findOne({ _id: r.fundId });
    if (!record) {
      add("lost", `no refund record for fund ${r.fundId}`);
      continue;
    }
    if (record.state !== "sent")
      add(record.state === "pending" ? "stuck" : "wrong", `refund ${record.state}`);
    if ((record.attempt ?? 1) !== 1) add("wrong", `refund took ${record.attempt} attempts`);
    if (JSON.stringify(record.destination) !== JSON.stringify(r.destination))
      add("wrong", `refund went to ${JSON.stringify(record.destination)}`);
    if (fund?.outcome !== "refunded") add("wrong", `fund ${fund?.outcome ?? "missing"}, not refunded`);
    const open = await exceptions.countDocuments({
      status: "open",
      ...(r.case === "error-offramp"
        ? { orderId: orderId ?? "", kind: "payout-failed" }
        : { fundId: r.fundId }),
    });
    if (open > 0) add("wrong", "its exception is still open");
    const want =
      r.case === "error-offramp"
        ? String(r.order.plan.body.amount)
        : r.case === "token-surplus"
          ? TOKEN_SURPLUS
          : (fund?.detail.fiatAmount ?? "?");
    const sameAmount =
      r.case === "fiat-surplus"
        ? record.amount === want
        : parseUnits(record.amount, 6) === parseUnits(want, 6);
    if (!sameAmount) add("wrong", `refund of ${record.amount}, the fund was ${want}`);
    if ("toAddress" in r.destination) {
      const held = await balanceOf(r.destination.toAddress);
      const owed = parseUnits(want, 6);
      if (held !== owed)
        add(held > owed ? "duplicated" : "lost", `refund address holds ${held}, owed ${owed}`);
      else sent++;
    } else {
      const account = r.destination.accountNumber;
      const paid = await payouts.find({ "command.accountNumber": account } as never).toArray();
      const done = paid.filter((p) => p.status === "COMPLETED");
      if (done.length !== 1)
        add(done.length > 1 ? "duplicated" : "lost", `${done.length} completed payouts to ${account}`);
      else if (done[0]?._id !== `refund:${r.fundId}` || done[0]?.command.fiatAmount !== want)
        add("wrong", `payout ${done[0]?._id} of ${done[0]?.command.fiatAmount}, owed ${want}`);
      else sent++;
    }
  }
  const asked = new Set(refunds.flatMap((r) => (r.fundId ? [r.fundId] : [])));
  const pending = await records.countDocuments({ state: "pending" });
  if (pending > 0) problems.push({ kind: "stuck", orderId: null, what: `${pending} refunds left pending` });
  const all = await records.find({}, { projection: { _id: 1 } }).toArray();
  const unasked = all.filter((d) => !asked.has(d._id));
  if (unasked.length > 0)
    problems.push({
      kind: "wrong",
      orderId: null,
      what: `refund records nobody asked for: ${unasked.map((d) => d._id).join(", ")}`,
    });
  const byCase = (c: RefundCase) => refunds.filter((r) => r.case === c).length;
  return {
    problems,
    sent,
    summary:
      `refunds: ${refunds.length} asked (ERROR offramps ${byCase("error-offramp")}, token surpluses ` +
      `${byCase("token-surplus")}, fiat surpluses ${byCase("fiat-surplus")}), ${counters.clicks} asks answered 202, ` +
      `${counters.outageResends} sent again after an outage; sent exactly once with the exact amount ${sent}; ` +
      `left pending ${pending}; problems ${problems.length}`,
  };
}
