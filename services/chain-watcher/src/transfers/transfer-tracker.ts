import type { Logger } from "@ramp/runtime";
import type { ChainRegistry } from "../chains/registry.ts";
import { repeatEvery } from "../watcher/repeat.ts";
import type { SendLock } from "./send-lock.ts";
import type { Senders } from "./senders.ts";
import type { TransferExecutor } from "./transfer-executor.ts";
import type { TransferDoc, TransferStore } from "./transfer-store.ts";

/** A sent transaction still unconfirmed after this long is sent again, in case a node dropped it. */
const REBROADCAST_AFTER_MS = 30_000;

/**
 * Follows every "broadcasting" transfer to confirmed or failed and publishes its TransferResult.
 * At start-up it first re-sends every stored transaction (a crash may have hit before or during the
 * broadcast); the bytes are the stored ones, so the chain sees the same hash, never a second transfer.
 */
export function startTransferTracker(deps: {
  store: TransferStore;
  registry: ChainRegistry;
  senders: Senders;
  executor: TransferExecutor;
  withSendLock: SendLock;
  intervalMs: number;
  log: Logger;
}): { stop(): Promise<void> } {
  const { store, registry, senders, executor, log } = deps;
  let first = true;
  let loop: ReturnType<typeof repeatEvery> | undefined;

  async function follow(doc: TransferDoc, resend: boolean): Promise<void> {
    if (!registry.get(doc.chain).adapter || !doc.signature) return;
    const stale = !doc.lastBroadcastAt || Date.now() - doc.lastBroadcastAt.getTime() > REBROADCAST_AFTER_MS;
    if (resend || !doc.sent || stale) {
      await deps.withSendLock(doc.chain, () => executor.rebroadcast(doc));
    }
    const status = await senders.for(doc.chain, doc.mint, doc.step).status(doc.signature);
    if (status === "pending") return;
    const done = await store.finish(
      doc._id,
      "broadcasting",
      status === "confirmed"
        ? { status: "CONFIRMED", signature: doc.signature, reason: null }
        : { status: "FAILED", signature: doc.signature, reason: "transaction failed on chain (reverted)" },
    );
    if (done) log.info({ transferId: doc._id, chain: doc.chain, status }, "transfer finished");
  }

  async function tick(): Promise<void> {
    const resend = first;
    first = false;
    for (const doc of await store.broadcasting()) {
      if (loop?.stopped()) return;
      await follow(doc, resend).catch((err) =>
        log.warn({ err, transferId: doc._id }, "transfer tracking failed; will retry"),
      );
    }
  }

  loop = repeatEvery(deps.intervalMs, tick, (err) => log.warn({ err }, "transfer tracker failed"));
  return loop;
}
