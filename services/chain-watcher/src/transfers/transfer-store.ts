import type { JetStreamClient } from "@nats-io/jetstream";
import { type Chain, Events, type TransferCommand, type TransferResult } from "@ramp/contracts";
import {
  type Claims,
  createStateStore,
  type Logger,
  newTraceContext,
  outboxEntry,
  type Stoppable,
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

/**
 * Consolidation's own transfers: a gas top-up from the treasury to a deposit address, or a deposit
 * address's tokens to the treasury (signed by its key). Orders never hears of them: no TransferResult.
 */
export type SweepStep = { kind: "gas" } | { kind: "sweep"; index: number };

/** What the executor sends: an orders command, or one of consolidation's steps. */
export type OutboundTransfer = TransferCommand & { step?: SweepStep };

export interface TransferDoc extends WithOutbox {
  _id: string; // requestId
  chain: Chain;
  mint: string;
  recipient: string;
  amount: string;
  /** Set on consolidation's transfers only. */
  step?: SweepStep;
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

/** Outbound transfers, each executed once per request id. */
export interface TransferStore {
  ensureIndexes(): Promise<void>;
  get(requestId: string): Promise<TransferDoc | null>;
  /** Claims the request; a duplicate-key error means it was claimed before. */
  claim(cmd: OutboundTransfer, trace?: TraceContext): Promise<void>;
  /** Takes over a "preparing" claim left by a run that died or failed before signing; false once it left "preparing". */
  reclaim(requestId: string): Promise<boolean>;
  /** preparing → broadcasting with the signed bytes, stored before they are ever sent. */
  markPrepared(requestId: string, prepared: PreparedTransfer): Promise<void>;
  markSent(requestId: string): Promise<void>;
  /**
   * Replaces the stored transaction of a "broadcasting" transfer that can never be mined (its nonce was
   * taken) with a new one; false when the stored one is no longer `signature`.
   */
  resign(requestId: string, signature: string, prepared: PreparedTransfer): Promise<boolean>;
  broadcasting(chain?: Chain): Promise<TransferDoc[]>;
  /** A terminal change carrying the TransferResult in the same update; true when this call made it. */
  finish(requestId: string, from: TransferState, result: Omit<TransferResult, "requestId">): Promise<boolean>;
  flush(requestId: string): Promise<void>;
  startSweeper(intervalMs: number): Stoppable;
}

export function createTransferStore(db: Db, js: JetStreamClient, claims: Claims, log: Logger): TransferStore {
  const transfers = db.collection<TransferDoc>("transfers");
  const states = createStateStore<TransferDoc, TransferState>({
    collection: transfers,
    stateField: "status",
    claims,
    js,
    log,
    // A change sets and announces the signed bytes or the chain's answer; it reads only `step` and
    // `trace`, which the claim fixed.
    decidedBy: [],
  });

  return {
    async ensureIndexes(): Promise<void> {
      await transfers.createIndex({ status: 1 });
    },
    get: (requestId) => transfers.findOne({ _id: requestId }),
    async claim(cmd, trace) {
      const now = new Date();
      await transfers.insertOne({
        _id: cmd.requestId,
        chain: cmd.chain,
        mint: cmd.mint,
        recipient: cmd.recipient,
        amount: cmd.amount,
        ...(cmd.step ? { step: cmd.step } : {}),
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
    async reclaim(requestId) {
      const res = await transfers.updateOne(
        { _id: requestId, status: "preparing" },
        { $set: { claimedAt: new Date() } },
      );
      return res.modifiedCount === 1;
    },
    async markPrepared(requestId, prepared) {
      const moved = await states.transition({
        id: requestId,
        from: "preparing",
        to: "broadcasting",
        // Exclusive already (send lock); a re-prepare after a crash before this point must win.
        cause: "prepared",
        set: () => ({ signature: prepared.signature, raw: prepared.raw, updatedAt: new Date() }),
      });
      if (moved?.signature !== prepared.signature)
        throw new Error(`transfer ${requestId} left "preparing" under us`);
    },
    resign: (requestId, signature, prepared) =>
      states.update(
        requestId,
        "broadcasting",
        { signature },
        { signature: prepared.signature, raw: prepared.raw, sent: false, updatedAt: new Date() },
      ),
    async markSent(requestId) {
      await transfers.updateOne({ _id: requestId }, { $set: { sent: true, lastBroadcastAt: new Date() } });
    },
    broadcasting: (chain) =>
      transfers.find(chain ? { status: "broadcasting", chain } : { status: "broadcasting" }).toArray(),
    async finish(requestId, from, result) {
      const to = result.status === "CONFIRMED" ? "confirmed" : "failed";
      const done = await states.transition({
        id: requestId,
        from,
        to,
        cause: result.status,
        set: () => ({ reason: result.reason, updatedAt: new Date() }),
        events: (next) => {
          if (next.step) return [];
          const msgId = transferMsgId(requestId);
          return [
            outboxEntry(
              Events.transferResult,
              { requestId, ...result },
              msgId,
              next.trace ?? newTraceContext(msgId),
            ),
          ];
        },
      });
      return done?.status === to;
    },
    flush: (requestId) => states.flush(requestId),
    startSweeper: (intervalMs) => states.startSweeper({ intervalMs }),
  };
}
