import { isDuplicateKey, type Logger, type TraceContext } from "@ramp/runtime";
import type { PreparedTransfer } from "../chains/adapter.ts";
import { NonceTaken, TransferRejected } from "../chains/errors.ts";
import type { SendLock } from "./send-lock.ts";
import type { Senders } from "./senders.ts";
import type { OutboundTransfer, TransferDoc, TransferStore } from "./transfer-store.ts";

/** Signings of one transfer whose nonce another transaction took, before giving up for this round. */
const RESIGN_ATTEMPTS = 3;

const pick = ({
  chain,
  mint,
  recipient,
  amount,
  step,
}: Pick<OutboundTransfer, "chain" | "mint" | "recipient" | "amount" | "step">) => ({
  chain,
  mint,
  recipient,
  amount,
  ...(step ? { step } : {}),
});

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

  /**
   * Sends a stored transaction, again if need be: the same bytes, hence the same hash, so never a second
   * transfer. If its nonce went to another transaction while it was not sent (another signer read the
   * same pending nonce), it can never be mined: it is signed anew and the new one is stored before it
   * is sent. Runs under the send lock.
   */
  async function send(
    doc: Pick<TransferDoc, "_id" | "chain" | "mint" | "recipient" | "amount" | "step">,
    signed: PreparedTransfer,
  ) {
    const sender = senders.for(doc.chain, doc.mint, doc.step);
    let current = signed;
    for (let attempt = 1; ; attempt++) {
      try {
        await sender.broadcast(current);
        await store.markSent(doc._id);
        return;
      } catch (err) {
        if (err instanceof TransferRejected) {
          await store.finish(doc._id, "broadcasting", {
            status: "FAILED",
            signature: current.signature,
            reason: err.message,
          });
          return;
        }
        if (!(err instanceof NonceTaken) || attempt >= RESIGN_ATTEMPTS) throw err;
        const next = await sender.prepare({ requestId: doc._id, ...pick(doc) });
        if (!(await store.resign(doc._id, current.signature, next))) return;
        log.warn(
          { transferId: doc._id, chain: doc.chain, was: current.signature, now: next.signature },
          "transfer's nonce was taken before it was sent; signed again",
        );
        current = next;
      }
    }
  }

  async function rebroadcast(doc: TransferDoc): Promise<void> {
    if (!doc.signature || !doc.raw) return;
    await send(doc, { signature: doc.signature, raw: doc.raw });
  }

  async function execute(cmd: OutboundTransfer, attempt: number, trace?: TraceContext): Promise<void> {
    const sender = senders.for(cmd.chain, cmd.mint, cmd.step);
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
      // A claim still "preparing" was left by a run that no longer holds the send lock (it died, or its
      // prepare failed, before signing): nobody else signs on this chain while we hold it, so it is ours
      // to take over now, not after a wait. Should a holder that lost its lease unawares sign as well,
      // only one signed transaction is ever stored (markPrepared leaves "preparing" once) and sent.
      if (doc?.status === "preparing" && !(await store.reclaim(cmd.requestId)))
        doc = await store.get(cmd.requestId);
      if (doc && doc.status !== "preparing") {
        // Redelivery or a second command with the same requestId: nothing more to do here.
        if (doc.outbox.length > 0) await store.flush(doc._id);
        return;
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
        await send({ _id: cmd.requestId, ...pick(cmd) }, prepared);
      } catch (err) {
        // Stored: the tracker re-sends the same bytes; no reason to redeliver the command.
        log.warn({ err, transferId: cmd.requestId }, "broadcast failed; will re-send the stored transaction");
      }
    });
  }

  return { execute, rebroadcast };
}
export type TransferExecutor = ReturnType<typeof createTransferExecutor>;
