import type { Chain } from "@ramp/contracts";
import type { Logger } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { Custody } from "../chains/adapter.ts";
import type { TransferExecutor } from "../transfers/transfer-executor.ts";
import type { TransferStore } from "../transfers/transfer-store.ts";
import type { SweepDoc, SweepStore } from "./sweep-store.ts";

/** Rounds (each a fresh balance reading and fresh transactions) before a sweep is held for an operator. */
export const MAX_SWEEP_ROUNDS = 3;
/** Sweeps advanced per tick; the rest wait for the next one. */
const BATCH = 20;

export interface ConsolidatorDeps {
  sweeps: SweepStore;
  transfers: TransferStore;
  executor: TransferExecutor;
  custody: (chain: Chain) => Custody | undefined;
  /** SWEEP_MIN_<CHAIN>: at or below it a balance is left where it is. */
  sweepMin: (chain: Chain) => string;
  /** TRANSFER_MAX_ATTEMPTS: transient failures of one step before it is failed for good. */
  maxAttempts: number;
  log: Logger;
}

/** The request id of one step of one round: stable across restarts, never reused by another round. */
export const sweepRequestId = (doc: SweepDoc, step: "gas" | "tokens") =>
  `sweep:${doc.chain}:${doc.cycle}:${doc.round}:${step}`;

/**
 * Moves settled deposit addresses' tokens to their chain's treasury, one step at a time, each step an
 * outbound transfer of the executor (claimed, signed and stored before broadcast, followed by the
 * tracker). A step is looked up by its request id before anything is signed, so a restart anywhere
 * resumes the same transaction and never signs a second one.
 */
export function createConsolidator(deps: ConsolidatorDeps) {
  const { sweeps, transfers, executor, log } = deps;

  async function nextRound(doc: SweepDoc, reason: string) {
    const held = doc.round + 1 >= MAX_SWEEP_ROUNDS;
    // Where a `stuck` exception for the operator would be raised (the exceptions queue is orders').
    log.warn({ chain: doc.chain, address: doc.address, round: doc.round, reason, held }, "sweep step failed");
    await sweeps.advance(doc, held ? { status: "held", reason } : { status: "due", round: doc.round + 1 });
  }

  /** Runs one step's transfer (a no-op once it exists) and answers where it stands. */
  async function step(doc: SweepDoc, kind: "gas" | "tokens", custody: Custody) {
    const requestId = sweepRequestId(doc, kind);
    // Not claimed yet, or claimed by a run that died before signing (the executor takes such a claim
    // over once it is stale): executed; anything further along is the tracker's to follow.
    const existing = await transfers.get(requestId);
    if (!existing || existing.status === "preparing") {
      const cmd =
        kind === "gas"
          ? {
              requestId,
              chain: doc.chain,
              mint: "native",
              recipient: doc.address,
              amount: doc.gas!,
              step: { kind: "gas" as const },
            }
          : {
              requestId,
              chain: doc.chain,
              mint: doc.mint,
              recipient: custody.treasuryAddress,
              amount: doc.amount!,
              step: { kind: "sweep" as const, index: doc.index },
            };
      try {
        await executor.execute(cmd, doc.attempts + 1);
      } catch (err) {
        await sweeps.failedAttempt(doc, err instanceof Error ? err.message : String(err));
        throw err;
      }
    }
    return (await transfers.get(requestId)) ?? undefined;
  }

  async function advance(doc: SweepDoc): Promise<void> {
    const custody = deps.custody(doc.chain);
    if (!custody) return;
    if (doc.status === "due") {
      const balance = await custody.tokenBalance(doc.address, doc.mint);
      if (new Decimal(balance).lte(deps.sweepMin(doc.chain))) {
        await sweeps.finish(doc);
        return;
      }
      const gas = await custody.sweepGasShortfall(doc.address, doc.mint, balance);
      await sweeps.advance(doc, {
        status: new Decimal(gas).isZero() ? "tokens" : "gas",
        amount: balance,
        gas,
      });
      return;
    }
    const kind = doc.status === "gas" ? "gas" : "tokens";
    const transfer = await step(doc, kind, custody);
    if (!transfer || transfer.status === "preparing" || transfer.status === "broadcasting") return;
    if (transfer.status === "failed") return nextRound(doc, transfer.reason ?? "transfer failed");
    if (kind === "gas") {
      await sweeps.advance(doc, { status: "tokens" });
      return;
    }
    await sweeps.finish(doc);
    log.info(
      {
        chain: doc.chain,
        address: doc.address,
        mint: doc.mint,
        amount: doc.amount,
        signature: transfer.signature,
      },
      "deposit address consolidated into the treasury",
    );
  }

  async function tick(): Promise<void> {
    for (const doc of await sweeps.pending(BATCH)) {
      await advance(doc).catch((err) =>
        log.warn({ err, chain: doc.chain, address: doc.address }, "consolidation step failed; will retry"),
      );
    }
  }

  return { tick, advance };
}
export type Consolidator = ReturnType<typeof createConsolidator>;
