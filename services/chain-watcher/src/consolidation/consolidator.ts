import type { Chain, ExceptionResolved, ExceptionSignal } from "@ramp/contracts";
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
  /** Raises an exception in the operators' queue (published on chain-watcher's exceptions subject). */
  raise: (signal: ExceptionSignal) => Promise<void>;
  log: Logger;
}

const HELD_KEY = "sweep-held:";
/** The `stuck` exception of a sweep held in `cycle`: a later hold (a new cycle) is another exception. */
export const heldSweepKey = (cycle: string) => `${HELD_KEY}${cycle}`;
/** The cycle a resolved exception's key names, when it is a held sweep's. */
const heldSweepCycle = (key: string) => (key.startsWith(HELD_KEY) ? key.slice(HELD_KEY.length) : undefined);

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

  /** The held sweep's `stuck` exception; raising it again is the same exception. */
  const raiseHeld = (doc: SweepDoc, reason: string, since: Date) =>
    deps.raise({
      action: "raise",
      key: heldSweepKey(doc.cycle),
      kind: "stuck",
      businessId: null,
      chain: doc.chain,
      token: doc.mint,
      ...(doc.amount ? { amount: doc.amount } : {}),
      since: since.toISOString(),
      detail: `consolidation of ${doc.address} held after ${MAX_SWEEP_ROUNDS} failed rounds (${reason}); resolve to try again`,
    });

  async function nextRound(doc: SweepDoc, reason: string) {
    const held = doc.round + 1 >= MAX_SWEEP_ROUNDS;
    log.warn({ chain: doc.chain, address: doc.address, round: doc.round, reason, held }, "sweep step failed");
    if (!held) {
      await sweeps.advance(doc, { status: "due", round: doc.round + 1 });
      return;
    }
    // Raised before it is held: a crash in between repeats this round's ending, and the same key again.
    await raiseHeld(doc, reason, new Date());
    await sweeps.advance(doc, { status: "held", reason });
  }

  /** Runs one step's transfer (a no-op once it exists) and answers where it stands. */
  async function step(doc: SweepDoc, kind: "gas" | "tokens", custody: Custody) {
    const requestId = sweepRequestId(doc, kind);
    // Not claimed yet, or claimed by a run that died or failed before signing (the executor takes such
    // a claim over): executed; anything further along is the tracker's to follow.
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

  let announced = false;
  async function tick(): Promise<void> {
    if (!announced) {
      // Once per run: sweeps held before their exception existed (an older version), or whose raise a
      // crash cut off, are in the queue too.
      for (const doc of await sweeps.held()) await raiseHeld(doc, doc.reason ?? "unknown", doc.updatedAt);
      announced = true;
    }
    for (const doc of await sweeps.pending(BATCH)) {
      await advance(doc).catch((err) =>
        log.warn({ err, chain: doc.chain, address: doc.address }, "consolidation step failed; will retry"),
      );
    }
  }

  /**
   * An operator resolved a held sweep's exception (having dealt with its cause: a treasury out of gas,
   * say): it starts again in a new cycle, from a fresh balance reading. A repeat finds nothing held.
   */
  async function resolved(ev: ExceptionResolved): Promise<void> {
    const cycle = heldSweepCycle(ev.key);
    if (ev.kind !== "stuck" || !cycle) return;
    if (await sweeps.release(cycle))
      log.info({ key: ev.key, note: ev.note }, "held sweep released by an operator");
  }

  return { tick, advance, resolved };
}
export type Consolidator = ReturnType<typeof createConsolidator>;
