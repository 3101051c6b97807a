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
  onDeposit?: OnDeposit;
  log: Logger;
}

/**
 * Told of every transfer stored or seen again on a watched address: `created` the first time. `watch`
 * is the entry as read before the transfer was polled, so what changed on it since may be missing.
 */
export type OnDeposit = (watch: WatchDoc, mint: string, created: boolean) => Promise<void>;

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
  onDeposit?: OnDeposit,
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
    if (stored.created) created++;
    // Seen again too: a crash after the deposit was stored and before this call is made good by the
    // re-poll of the same range.
    await onDeposit?.(w, t.mint, stored.created);
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
      await recordTransfers(chain, result.transfers, watched, deps.deposits, log, deps.onDeposit);
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
