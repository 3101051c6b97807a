import type { JetStreamClient } from "@nats-io/jetstream";
import type { Chain, DepositObserved, DepositToken } from "@ramp/contracts";
import { Events } from "@ramp/contracts";
import {
  createOutboxCollection,
  currentTrace,
  type Logger,
  outboxEntry,
  type Stoppable,
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

/** Every chain deposit the service sees, each stored once and announced once. */
export interface DepositStore {
  ensureIndexes(): Promise<void>;
  /**
   * Stores the deposit with its event, the token described, and publishes it; `created` is false for
   * a transfer seen before.
   */
  record(seen: Omit<DepositObserved, "token">): Promise<{ created: boolean }>;
  startSweeper(intervalMs: number): Stoppable;
}

/**
 * The one path every deposit takes, the watcher's and the sandbox's: store with its event in the
 * same insert (unique {chain, txId, index}), then publish. A crash between the two is healed by the
 * sweeper; a second sighting of the same transfer inserts nothing and publishes nothing new.
 */
export function createDepositStore(
  db: Db,
  js: JetStreamClient,
  log: Logger,
  describeToken: (chain: Chain, mint: string) => Promise<DepositToken>,
): DepositStore {
  const deposits = db.collection<DepositDoc>("deposits");
  const outbox = createOutboxCollection({ collection: deposits, js, log });
  return {
    async ensureIndexes(): Promise<void> {
      await deposits.createIndex({ chain: 1, txId: 1, index: 1 }, { unique: true });
    },
    async record(seen) {
      const msgId = depositMsgId(seen);
      // Decimals come from the adapter's cache (the poll that found the transfer needed them too).
      const event: DepositObserved = { ...seen, token: await describeToken(seen.chain, seen.mint) };
      const created = await outbox.insert({
        _id: msgId,
        ...event,
        observedAt: new Date(),
        outbox: [outboxEntry(Events.depositObserved, event, msgId, currentTrace(`deposit:${msgId}`))],
      });
      if (created)
        log.info(
          { chain: event.chain, txId: event.txId, index: event.index, ref: event.ref },
          "deposit observed",
        );
      return { created };
    },
    startSweeper: (intervalMs) => outbox.startSweeper({ intervalMs }),
  };
}
