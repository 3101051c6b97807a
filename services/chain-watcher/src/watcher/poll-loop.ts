import { type Chain, normalizeAddress } from "@ramp/contracts";
import type { Logger } from "@ramp/runtime";
import type { AllocationStore, WatchDoc } from "../allocation/allocation-store.ts";
import type { ChainAdapter, ObservedTransfer } from "../chains/adapter.ts";
import type { DepositStore } from "../deposits/deposit-store.ts";
import type { CursorStore } from "./cursor-store.ts";

export interface PollLoopDeps {
  chain: Chain;
  adapter: ChainAdapter;
  allocations: AllocationStore;
  deposits: DepositStore;
  cursors: CursorStore;
  intervalMs: number;
  onLateDeposit?: (watch: WatchDoc, mint: string) => Promise<void>;
  log: Logger;
}

/** Polls in a row while the cursor moves (catching up), so a backlog is not paced by the interval. */
const MAX_PASSES_PER_TICK = 50;

/**
 * Stores and announces each transfer to a watched address, once however often it is seen (the deposit
 * store's dedupe): the poll's path, and a reindex's.
 */
export async function recordTransfers(
  chain: Chain,
  transfers: ObservedTransfer[],
  watched: WatchDoc[],
  deposits: DepositStore,
  log: Logger,
  /** Told of each deposit stored for the first time on an address whose order already settled. */
  onLateDeposit?: (watch: WatchDoc, mint: string) => Promise<void>,
): Promise<number> {
  const byKey = new Map(watched.map((w) => [w.key, w]));
  let created = 0;
  for (const t of transfers) {
    const w = byKey.get(normalizeAddress(chain, t.to));
    if (!w) {
      log.warn({ chain, txId: t.txId, to: t.to }, "adapter reported a transfer to an unwatched address");
      continue;
    }
    // A mint outside the allocation's list is still reported: orders decides what it means.
    const stored = await deposits.record({
      chain,
      txId: t.txId,
      index: t.index,
      address: w.address,
      mint: t.mint,
      amount: t.amount,
      sender: t.sender,
      purpose: w.purpose,
      ref: w.ref,
    });
    if (!stored.created) continue;
    created++;
    if (w.settled) await onLateDeposit?.(w, t.mint);
  }
  return created;
}

/**
 * One chain's watcher: cursor → adapter.poll → store + publish each transfer → advance the cursor.
 * If any transfer cannot be stored or published, the cursor stays and the same range is polled again;
 * the deposit store's dedupe makes that re-poll harmless.
 */
export function startPollLoop(deps: PollLoopDeps): { stop(): Promise<void>; tick(): Promise<void> } {
  const { chain, adapter, log } = deps;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function passes(): Promise<void> {
    for (let pass = 0; pass < MAX_PASSES_PER_TICK && !stopped; pass++) {
      const cursor = await deps.cursors.get(chain);
      const watched = await deps.allocations.watchedOn(chain);
      const result = await adapter.poll(
        cursor,
        watched.map((w) => ({ address: w.address, mints: w.mints })),
      );
      await recordTransfers(chain, result.transfers, watched, deps.deposits, log, deps.onLateDeposit);
      if (result.cursor === cursor) return;
      await deps.cursors.set(chain, result.cursor);
    }
  }

  const tick = (): Promise<void> => {
    running = running.then(() =>
      passes().catch((err) => log.warn({ err, chain }, "chain poll failed; will retry")),
    );
    return running;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void tick().then(schedule), deps.intervalMs);
  };
  void tick().then(schedule);

  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
