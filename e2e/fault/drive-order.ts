import type { ProcessStack } from "../support/process-stack.ts";
import { type ApiClient, isOutage } from "./api-client.ts";
import { sourceDeposits } from "./ledgers.ts";
import type { PlannedOrder } from "./order-mix.ts";

export interface DriverCounters {
  /** Creates answered by an outage and sent again (a create is safe to repeat: an unpaid extra order). */
  createRetries: number;
  /** Deposit calls answered by an outage. */
  depositOutages: number;
  /** ...of which the deposit had entered the system anyway (found where it enters), so not repeated. */
  depositsThroughAnyway: number;
  /** ...of which the order had moved on already, so not repeated. */
  depositsMovedAnyway: number;
  /** Deposits sent again: none had entered, and the order still waited for funds. */
  depositRetries: number;
}

export const newCounters = (): DriverCounters => ({
  createRetries: 0,
  depositOutages: 0,
  depositsThroughAnyway: 0,
  depositsMovedAnyway: 0,
  depositRetries: 0,
});

export interface DrivenOrder {
  plan: PlannedOrder;
  id: string | null;
  /** An offramp's deposit address, as the create answered it. */
  address: string;
  depositAccepted: boolean;
  /** An on-chain offramp's deposit: the hash of the payer's one transfer to the order's address. */
  paidTx: string | null;
  /** Why the driver gave up on this order (a non-outage answer, or the deadline). */
  failure: string | null;
}

/** Sends `amount` tokens to `address` on the real chain, once; resolves with the mined tx hash. */
export type PayOnChain = (address: string, amount: string) => Promise<string>;

export interface DriveContext {
  api: ApiClient;
  stack: ProcessStack;
  counters: DriverCounters;
  deadline: number;
  /** Pays on-chain orders (`plan.onChain` offramps); without it such orders fail. */
  payOnChain?: PayOnChain | undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const WAITING = new Set(["INIT", "AWAITING"]);
const brief = (body: unknown) => JSON.stringify(body).slice(0, 200);

/** The order's status through the API, or null while the API does not answer. */
export async function readStatus(api: ApiClient, plan: PlannedOrder, id: string): Promise<string | null> {
  const r = await api.get(plan.statusPath(id));
  return r.status === 200 ? String((r.body as { status?: unknown }).status) : null;
}

/**
 * Creates the order and pays it through the sandbox deposit route, as an integrator would while the
 * system fails under it. A deposit that got no answer may still have entered: it is sent again only
 * when none is found where deposits enter and the order still waits for funds. (A repeated deposit
 * is a second payment until requests carry an Idempotency-Key, so the driver must not guess.)
 */
export async function driveOrder(ctx: DriveContext, plan: PlannedOrder): Promise<DrivenOrder> {
  const out: DrivenOrder = {
    plan,
    id: null,
    address: "",
    depositAccepted: false,
    paidTx: null,
    failure: null,
  };
  while (!out.id) {
    if (Date.now() > ctx.deadline) return { ...out, failure: "create never answered before the deadline" };
    const r = await ctx.api.post(plan.createPath, plan.body);
    if (r.status === 201) {
      const created = r.body as { id: unknown; address?: unknown };
      out.id = String(created.id);
      out.address = String(created.address ?? "");
    } else if (isOutage(r.status)) {
      ctx.counters.createRetries++;
      await sleep(500);
    } else return { ...out, failure: `create answered ${r.status} ${brief(r.body)}` };
  }
  const id = out.id;
  await sleep(plan.payAfterMs);
  if (plan.onChain && plan.kind === "offramp") {
    // A real transfer is never repeated: the payer signs it once, whatever happens to the system.
    if (!ctx.payOnChain) return { ...out, failure: "an on-chain order but no chain to pay on" };
    try {
      const paidTx = await ctx.payOnChain(out.address, String(plan.body.amount));
      return { ...out, depositAccepted: true, paidTx };
    } catch (err) {
      return {
        ...out,
        failure: `on-chain payment failed: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  }
  for (;;) {
    if (Date.now() > ctx.deadline) return { ...out, failure: "deposit never answered before the deadline" };
    const r = await ctx.api.post(plan.depositPath(id), {});
    if (r.status === 202) return { ...out, depositAccepted: true };
    if (!isOutage(r.status)) {
      // "not awaiting a deposit": an earlier call's deposit already moved the order.
      if (r.status === 400 && /not awaiting/.test(brief(r.body))) return { ...out, depositAccepted: true };
      return { ...out, failure: `deposit answered ${r.status} ${brief(r.body)}` };
    }
    ctx.counters.depositOutages++;
    const verdict = await afterOutage(ctx, plan, id);
    if (verdict === "entered") ctx.counters.depositsThroughAnyway++;
    if (verdict === "moved") ctx.counters.depositsMovedAnyway++;
    if (verdict !== "waiting") return { ...out, depositAccepted: true };
    ctx.counters.depositRetries++;
  }
}

/** After a deposit call that got no answer: did it enter, did the order move, or is it still waiting? */
async function afterOutage(
  ctx: DriveContext,
  plan: PlannedOrder,
  id: string,
): Promise<"entered" | "moved" | "waiting"> {
  while (Date.now() < ctx.deadline) {
    // Give a handler that outlived the caller's timeout the time to store what it was given.
    await sleep(1_500);
    const entered = await sourceDeposits(ctx.stack, plan, id).catch(() => null);
    if (entered === null) continue;
    if (entered.length > 0) return "entered";
    const status = await readStatus(ctx.api, plan, id);
    if (status === null) continue;
    return WAITING.has(status) ? "waiting" : "moved";
  }
  return "waiting";
}
