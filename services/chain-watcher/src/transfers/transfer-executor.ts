import type { TransferCommand } from "@ramp/contracts";
import { isDuplicateKey, type Logger, type TraceContext } from "@ramp/runtime";
import { TransferRejected } from "../chains/errors.ts";
import type { SendLock } from "./send-lock.ts";
import type { Senders } from "./senders.ts";
import type { TransferDoc, TransferStore } from "./transfer-store.ts";

/** A "preparing" claim older than this belongs to a run that died before signing. */
const STALE_CLAIM_MS = 60_000;

export interface TransferExecutorDeps {
  store: TransferStore;
  senders: Senders;
  withSendLock: SendLock;
  log: Logger;
  maxAttempts: number;
}

/**
 * Executes Commands.chainTransfer at most once per requestId: claim → sign → store the signed bytes →
 * broadcast. Confirmation is the tracker's job, so the command is acknowledged once the transaction is
 * safely stored (and, normally, sent).
 */
export function createTransferExecutor(deps: TransferExecutorDeps) {
  const { store, senders, log } = deps;

  /** Sends (again) a stored transaction; the same bytes, hence the same hash, so never a second transfer. */
  async function rebroadcast(doc: TransferDoc): Promise<void> {
    if (!doc.signature || !doc.raw) return;
    try {
      await senders.for(doc.chain, doc.mint).broadcast({ signature: doc.signature, raw: doc.raw });
      await store.markSent(doc._id);
    } catch (err) {
      if (err instanceof TransferRejected) {
        await store.finish(doc._id, "broadcasting", {
          status: "FAILED",
          signature: doc.signature,
          reason: err.message,
        });
        return;
      }
      throw err;
    }
  }

  async function execute(cmd: TransferCommand, attempt: number, trace?: TraceContext): Promise<void> {
    const sender = senders.for(cmd.chain, cmd.mint);
    await deps.withSendLock(cmd.chain, async () => {
      let doc = await store.get(cmd.requestId);
      if (!doc) {
        try {
          await store.claim(cmd, trace);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          doc = await store.get(cmd.requestId);
        }
      }
      if (doc && doc.status !== "preparing") {
        // Redelivery or a second command with the same requestId: nothing more to do here.
        if (doc.outbox.length > 0) await store.flush(doc._id);
        return;
      }
      if (doc && !(await store.reclaim(cmd.requestId, new Date(Date.now() - STALE_CLAIM_MS)))) {
        throw new Error(`transfer ${cmd.requestId} is being prepared by another run`);
      }
      // Earlier transactions must be in the node's pool first, or the pending nonce would repeat.
      for (const pending of await store.broadcasting(cmd.chain))
        if (!pending.sent) await rebroadcast(pending);

      let prepared: Awaited<ReturnType<typeof sender.prepare>>;
      try {
        prepared = await sender.prepare(cmd);
      } catch (err) {
        const permanent = err instanceof TransferRejected;
        if (!permanent && attempt < deps.maxAttempts) throw err;
        const reason = permanent ? err.message : `transfer could not be prepared after ${attempt} attempts`;
        log.warn({ transferId: cmd.requestId, chain: cmd.chain, reason }, "transfer failed");
        await store.finish(cmd.requestId, "preparing", { status: "FAILED", signature: "", reason });
        return;
      }
      await store.markPrepared(cmd.requestId, prepared);
      log.info(
        { transferId: cmd.requestId, chain: cmd.chain, signature: prepared.signature },
        "transfer signed",
      );
      try {
        await sender.broadcast(prepared);
        await store.markSent(cmd.requestId);
      } catch (err) {
        if (err instanceof TransferRejected) {
          await store.finish(cmd.requestId, "broadcasting", {
            status: "FAILED",
            signature: prepared.signature,
            reason: err.message,
          });
          return;
        }
        // Stored: the tracker re-sends the same bytes; no reason to redeliver the command.
        log.warn({ err, transferId: cmd.requestId }, "broadcast failed; will re-send the stored transaction");
      }
    });
  }

  return { execute, rebroadcast };
}
export type TransferExecutor = ReturnType<typeof createTransferExecutor>;
