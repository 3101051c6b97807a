import type { JetStreamClient } from "@nats-io/jetstream";
import { type DepositObserved, Events } from "@ramp/contracts";
import {
  flushOutbox,
  isDuplicateKey,
  type Logger,
  newTraceContext,
  outboxEntry,
  startOutboxSweeper,
  type WithOutbox,
} from "@ramp/runtime";
import type { Db } from "mongodb";

/** A seen chain transfer to a watched address; its DepositObserved event rides in the outbox. */
export interface DepositDoc extends DepositObserved, WithOutbox {
  _id: string;
  observedAt: Date;
}

/** The dedupe key and the event's Nats-Msg-Id: the same transfer is one deposit, published once. */
export const depositMsgId = (d: Pick<DepositObserved, "chain" | "txId" | "index">) =>
  `${d.chain}:${d.txId}:${d.index}`;

/**
 * The one path every deposit takes, the watcher's and the sandbox's: store with its event in the
 * same insert (unique {chain, txId, index}), then publish. A crash between the two is healed by the
 * sweeper; a second sighting of the same transfer inserts nothing and publishes nothing new.
 */
export function createDepositStore(db: Db, js: JetStreamClient, log: Logger) {
  const deposits = db.collection<DepositDoc>("deposits");
  return {
    collection: deposits,
    async ensureIndexes(): Promise<void> {
      await deposits.createIndex({ chain: 1, txId: 1, index: 1 }, { unique: true });
      await deposits.createIndex({ "outbox.0": 1 }, { sparse: true });
    },
    /** Stores and publishes; resolves only once the event is in JetStream (or was already). */
    async record(event: DepositObserved): Promise<{ created: boolean }> {
      const msgId = depositMsgId(event);
      let created = true;
      try {
        await deposits.insertOne({
          _id: msgId,
          ...event,
          observedAt: new Date(),
          outbox: [outboxEntry(Events.depositObserved, event, msgId, newTraceContext(`deposit:${msgId}`))],
        });
        log.info(
          { chain: event.chain, txId: event.txId, index: event.index, ref: event.ref },
          "deposit observed",
        );
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        created = false;
      }
      // Also on a duplicate: an earlier run may have stored it and died before publishing.
      await flushOutbox(js, deposits, msgId, log);
      return { created };
    },
    startSweeper: (intervalMs: number) => startOutboxSweeper(js, deposits, log, intervalMs),
  };
}
export type DepositStore = ReturnType<typeof createDepositStore>;
