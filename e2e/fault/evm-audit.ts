import { eventually } from "@ramp/devinfra/testing";
import { parseUnits } from "ethers";
import { EVM_TREASURY, type EvmChain } from "../support/evm-fixture.ts";
import type { ProcessStack } from "../support/process-stack.ts";
import type { OrderFacts, Problem } from "./audit.ts";
import { type DrivenRefund, TOKEN_SURPLUS } from "./refunds.ts";

/** Transactions each key had sent before the run: every send of the run is counted against it. */
export interface EvmBaseline {
  treasurySent: number;
  payerSent: number;
}

export async function evmBaseline(evm: EvmChain): Promise<EvmBaseline> {
  return {
    treasurySent: await evm.sentCount(EVM_TREASURY),
    payerSent: await evm.sentCount(evm.payerAddress),
  };
}

export interface EvmAudit {
  problems: Problem[];
  /** What the chain shows, to print beside the counts table. */
  summary: string;
}

const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? "").toLowerCase() === (b ?? "").toLowerCase();

/**
 * The orders of a fault run that touched the real chain, checked on the chain itself: each onramp's
 * recipient holds exactly the amount (sent once), by one successful treasury transaction, and the
 * treasury signed no other but the gas top-ups of consolidation and the refunds; each on-chain
 * offramp's deposit address received what the payer sent once (and the surplus, when one was paid),
 * which chain-watcher recorded once under that transaction's hash, and either still holds it or swept
 * it to the treasury: at most one sweep per deposit it received, nothing left behind.
 */
export async function auditEvm(
  stack: ProcessStack,
  evm: EvmChain,
  facts: OrderFacts[],
  before: EvmBaseline,
  refunds: DrivenRefund[] = [],
): Promise<EvmAudit> {
  const problems: Problem[] = [];
  const cw = await stack.db("chain-watcher");
  const onramps = facts.filter((f) => f.order.plan.onChain && f.order.plan.kind === "onramp");
  const offramps = facts.filter((f) => f.order.plan.onChain && f.order.plan.kind === "offramp");
  const amountOf = (f: OrderFacts) => parseUnits(String(f.order.plan.body.amount), 6);
  // Settled offramps' deposit addresses are consolidated into the treasury; the audit waits until no
  // sweep is left, so each address is either untouched or swept.
  const pendingSweeps = () => cw.collection("sweeps").countDocuments();
  const settled = await eventually(
    async () => ((await pendingSweeps()) === 0 ? true : undefined),
    60_000,
  ).catch(() => false);
  if (!settled)
    problems.push({
      kind: "stuck",
      orderId: null,
      what: `evm: ${await pendingSweeps()} sweeps never finished`,
    });
  let sends = 0;
  let swept = 0;
  for (const f of onramps) {
    const id = f.order.id;
    const add = (kind: Problem["kind"], what: string) =>
      problems.push({ kind, orderId: id, what: `evm: ${what}` });
    if (!id) continue;
    const recipient = String(f.order.plan.body.recipient);
    const held = await evm.balanceOf(recipient);
    const transfer = await cw
      .collection<{ _id: string; signature: string | null }>("transfers")
      .findOne({ _id: id }, { projection: { signature: 1 } });
    const receipt = transfer?.signature
      ? await evm.anvil.provider.getTransactionReceipt(transfer.signature)
      : null;
    if (f.status === "COMPLETED") {
      if (held !== amountOf(f))
        add(held > amountOf(f) ? "duplicated" : "lost", `recipient holds ${held}, sent ${amountOf(f)}`);
      if (receipt?.status !== 1)
        add("lost", `send ${transfer?.signature ?? "(none)"} not mined successfully`);
      else if (!same(receipt.from, EVM_TREASURY) || !same(receipt.to, evm.tokenAddress))
        add("wrong", `send ${receipt.hash} from ${receipt.from} to ${receipt.to}`);
      else sends++;
    } else if (held !== 0n) add("wrong", `order ${f.status} but recipient holds ${held}`);
  }

  let paid = 0;
  let sweeps = 0;
  const surplusOf = new Map(
    refunds.flatMap((r) => (r.surplusTx && r.order.id ? [[r.order.id, r.surplusTx]] : [])),
  );
  for (const f of offramps) {
    const id = f.order.id;
    const add = (kind: Problem["kind"], what: string) =>
      problems.push({ kind, orderId: id, what: `evm: ${what}` });
    if (!id || !f.order.paidTx) continue;
    paid++;
    const surplusTx = surplusOf.get(id);
    const payments = [f.order.paidTx, ...(surplusTx ? [surplusTx] : [])];
    const deposits = await cw
      .collection<{ txId: string; address: string }>("deposits")
      .find({ ref: id }, { projection: { txId: 1, address: 1 } })
      .toArray();
    const [d] = deposits;
    if (!d || deposits.length !== payments.length) {
      add(
        deposits.length > payments.length ? "duplicated" : "lost",
        `${deposits.length} deposits recorded for ${payments.length} transfers`,
      );
      if (!d) continue;
    }
    for (const tx of payments)
      if (!deposits.some((x) => same(x.txId, tx))) add("wrong", `no deposit recorded for ${tx}`);
    const received = amountOf(f) + (surplusTx ? parseUnits(TOKEN_SURPLUS, 6) : 0n);
    const held = await evm.balanceOf(d.address);
    const sent = await evm.sentCount(d.address);
    if (sent > payments.length)
      add("duplicated", `deposit address sent ${sent} transactions: one sweep per deposit at most`);
    else if (sent >= 1 && held !== 0n) add("wrong", `deposit address swept but still holds ${held}`);
    else if (sent === 0 && held !== received) add("wrong", `deposit address holds ${held}, paid ${received}`);
    // Consolidation is part of the money run (refunds given): there every settled address is swept.
    if (refunds.length > 0 && f.status === "COMPLETED" && sent === 0)
      add("stuck", "settled deposit address never swept");
    if (sent >= 1) swept++;
    sweeps += sent;
  }
  // A gas top-up for a sweep of an address without native coin enough; refunds pay from the treasury.
  const topUps = await cw
    .collection("transfers")
    .countDocuments({ "step.kind": "gas", status: "confirmed" } as never);
  const refunded = refunds.filter((r) => "toAddress" in r.destination && r.fundId).length;
  if (topUps > sweeps)
    problems.push({
      kind: "duplicated",
      orderId: null,
      what: `evm: ${topUps} gas top-ups for ${sweeps} sweeps`,
    });
  const treasurySent = (await evm.sentCount(EVM_TREASURY)) - before.treasurySent;
  const owed = sends + topUps + refunded;
  if (treasurySent !== owed)
    problems.push({
      kind: treasurySent > owed ? "duplicated" : "lost",
      orderId: null,
      what: `evm: the treasury sent ${treasurySent} transactions for ${sends} completed on-chain onramps, ${topUps} gas top-ups and ${refunded} refunds`,
    });
  const payerSent = (await evm.sentCount(evm.payerAddress)) - before.payerSent;
  if (payerSent !== paid + surplusOf.size)
    problems.push({
      kind: "wrong",
      orderId: null,
      what: `evm: the payer sent ${payerSent} transactions for ${paid} on-chain offramp payments and ${surplusOf.size} surpluses`,
    });
  const completed = (fs: OrderFacts[]) => fs.filter((f) => f.status === f.order.plan.expected).length;
  return {
    problems,
    summary:
      `evm (anvil): ${onramps.length} onramps sent on chain — ${completed(onramps)} as expected, ` +
      `treasury transactions ${treasurySent}; ${offramps.length} offramps paid on chain — ` +
      `${completed(offramps)} as expected, ${swept} addresses swept to the treasury in ${sweeps} sweeps ` +
      `(${topUps} gas top-ups), ${surplusOf.size} surpluses paid, ${refunded} refunds from the treasury, ` +
      `payer transactions ${payerSent}; ` +
      `problems ${problems.length}`,
  };
}
