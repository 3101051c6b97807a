import type { JetStreamClient } from "@nats-io/jetstream";
import { type Chain, Events, type TransferCommand, type TransferResult } from "@ramp/contracts";
import {
  flushOutbox,
  type Logger,
  newTraceContext,
  outboxEntry,
  startOutboxSweeper,
  type TraceContext,
  type WithOutbox,
} from "@ramp/runtime";
import type { Db } from "mongodb";
import type { PreparedTransfer } from "../chains/adapter.ts";

/**
 * preparing → broadcasting → confirmed | failed. The signed transaction is stored (status
 * broadcasting) before it is ever sent, so after a crash the same bytes are re-sent, never new ones.
 */
export type TransferState = "preparing" | "broadcasting" | "confirmed" | "failed";

export interface TransferDoc extends WithOutbox {
  _id: string; // requestId
  chain: Chain;
  mint: string;
  recipient: string;
  amount: string;
  status: TransferState;
  signature: string | null;
  raw: string | null;
  /** The node accepted the raw transaction at least once. */
  sent: boolean;
  lastBroadcastAt: Date | null;
  reason: string | null;
  claimedAt: Date;
  /** The command's trace, so the result joins the order's logs across services. */
  trace?: { requestId: string; traceparent: string } | null;
  createdAt: Date;
  updatedAt: Date;
}

export const transferMsgId = (requestId: string) => `transfer:${requestId}`;

export function createTransferStore(db: Db, js: JetStreamClient, log: Logger) {
  const transfers = db.collection<TransferDoc>("transfers");

  function resultEntry(doc: Pick<TransferDoc, "_id" | "trace">, result: Omit<TransferResult, "requestId">) {
    const msgId = transferMsgId(doc._id);
    return outboxEntry(
      Events.transferResult,
      { requestId: doc._id, ...result },
      msgId,
      doc.trace ?? newTraceContext(msgId),
    );
  }

  return {
    collection: transfers,
    async ensureIndexes(): Promise<void> {
      await transfers.createIndex({ status: 1 });
      await transfers.createIndex({ "outbox.0": 1 }, { sparse: true });
    },
    get: (requestId: string) => transfers.findOne({ _id: requestId }),
    /** Claims the request; a duplicate-key error means it was claimed before. */
    async claim(cmd: TransferCommand, trace?: TraceContext): Promise<void> {
      const now = new Date();
      await transfers.insertOne({
        _id: cmd.requestId,
        chain: cmd.chain,
        mint: cmd.mint,
        recipient: cmd.recipient,
        amount: cmd.amount,
        status: "preparing",
        signature: null,
        raw: null,
        sent: false,
        lastBroadcastAt: null,
        reason: null,
        claimedAt: now,
        trace: trace ? { requestId: trace.requestId, traceparent: trace.traceparent } : null,
        createdAt: now,
        updatedAt: now,
        outbox: [],
      });
    },
    /** Takes over a "preparing" claim left by a crashed run; false when someone holds it right now. */
    async reclaim(requestId: string, staleBefore: Date): Promise<boolean> {
      const res = await transfers.updateOne(
        { _id: requestId, status: "preparing", claimedAt: { $lt: staleBefore } },
        { $set: { claimedAt: new Date() } },
      );
      return res.modifiedCount === 1;
    },
    async markPrepared(requestId: string, prepared: PreparedTransfer): Promise<void> {
      const res = await transfers.updateOne(
        { _id: requestId, status: "preparing" },
        {
          $set: {
            status: "broadcasting",
            signature: prepared.signature,
            raw: prepared.raw,
            updatedAt: new Date(),
          },
        },
      );
      if (res.modifiedCount !== 1) throw new Error(`transfer ${requestId} left "preparing" under us`);
    },
    async markSent(requestId: string): Promise<void> {
      await transfers.updateOne({ _id: requestId }, { $set: { sent: true, lastBroadcastAt: new Date() } });
    },
    broadcasting: (chain?: Chain) =>
      transfers.find(chain ? { status: "broadcasting", chain } : { status: "broadcasting" }).toArray(),
    /** Terminal transitions carry the TransferResult in the same update, then publish it. */
    async finish(
      requestId: string,
      from: TransferState[],
      result: Omit<TransferResult, "requestId">,
    ): Promise<boolean> {
      const status = result.status === "CONFIRMED" ? "confirmed" : "failed";
      const stored = await transfers.findOne({ _id: requestId }, { projection: { trace: 1 } });
      const res = await transfers.updateOne(
        { _id: requestId, status: { $in: from } },
        {
          $set: { status, reason: result.reason, updatedAt: new Date() },
          $push: { outbox: resultEntry({ _id: requestId, trace: stored?.trace ?? null }, result) },
        },
      );
      await flushOutbox(js, transfers, requestId, log);
      return res.modifiedCount === 1;
    },
    flush: (requestId: string) => flushOutbox(js, transfers, requestId, log),
    startSweeper: (intervalMs: number) => startOutboxSweeper(js, transfers, log, intervalMs),
  };
}
export type TransferStore = ReturnType<typeof createTransferStore>;
