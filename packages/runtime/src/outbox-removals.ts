import type { JetStreamClient } from "@nats-io/jetstream";
import type { Collection, Document } from "mongodb";
import type { Logger } from "./logger.ts";
import {
  entryKey,
  type OutboxEntry,
  publishEntries,
  removePublished,
  type WithOutbox,
  type WriteGuard,
} from "./outbox.ts";

/**
 * How long published entries wait before their removal is written. A document whose next change comes
 * meanwhile (an offramp's payout answered within it) has its entries removed by that change's own
 * update, and removals of other documents waiting at the same moment leave in one command. Far below
 * the sweep's grace (1 s), so a sweep never re-sends what waits here, and with the publish before it,
 * within the `EXCLUSIVE_LINGER_MS` a document's hold is kept after its change, so the removal
 * usually takes no hold of its own.
 */
export const REMOVAL_LINGER_MS = 50;

/** A document's entries published by this process and not yet removed. */
export interface WaitingRemoval<I> {
  id: I;
  published: OutboxEntry[];
  /** The outbox as last stored: says whether the removal empties it. */
  all: readonly OutboxEntry[];
}

export interface OutboxRemovals<I> {
  /**
   * Publishes the entries of `all` (the outbox as stored) that this process has not published already,
   * in order, and queues their removal. Throws the first publish failure, after queueing the removal
   * of what went out before it.
   */
  flush(id: I, all: readonly OutboxEntry[]): Promise<void>;
  /**
   * Takes a document's queued removal out of the queue, for the caller to make in a write of its own
   * (a state change that rewrites the outbox anyway); `requeue` gives it back when that write missed.
   * A flush of the same document holds its entries while it publishes, so a change made then finds
   * nothing to take and leaves them to that flush's removal.
   */
  take(id: I): WaitingRemoval<I> | undefined;
  requeue(removal: WaitingRemoval<I>): void;
  /** Writes every queued removal now and waits for it (a stop, a test that reads the outbox). */
  drain(): Promise<void>;
}

/**
 * The removal of published outbox entries, delayed by `lingerMs` and merged: per document (one write
 * for the entries of several changes) and across documents (one command). A crash before it leaves the
 * entries stored and flagged, as a crash between publishing and removing always did: the sweep re-sends
 * them and JetStream drops the copies by message id.
 */
export function createOutboxRemovals<T extends Document & WithOutbox>(
  js: JetStreamClient,
  collection: Collection<T>,
  guard: (id: T["_id"]) => WriteGuard,
  log: Logger,
  lingerMs = REMOVAL_LINGER_MS,
): OutboxRemovals<T["_id"]> {
  const waiting = new Map<string, WaitingRemoval<T["_id"]>>();
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;

  const removeWaiting = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const batch = [...waiting.values()];
    waiting.clear();
    const done = Promise.all(
      batch.map((w) =>
        guard(w.id)(() => removePublished(collection, w.id, w.published, w.all)).catch((err: unknown) =>
          log.warn(
            { err, id: String(w.id), collection: collection.collectionName },
            "outbox removal deferred to sweeper",
          ),
        ),
      ),
    ).then(() => undefined);
    running.add(done);
    void done.finally(() => running.delete(done));
    return done;
  };

  const queue = (removal: WaitingRemoval<T["_id"]>) => {
    const key = String(removal.id);
    const newer = waiting.get(key);
    waiting.set(key, newer ? { ...newer, published: [...removal.published, ...newer.published] } : removal);
    if (!timer) {
      timer = setTimeout(() => void removeWaiting(), lingerMs);
      // Nothing is lost if the process ends first: the entries stay stored for the sweep.
      timer.unref();
    }
  };
  const take = (id: T["_id"]) => {
    const removal = waiting.get(String(id));
    waiting.delete(String(id));
    return removal;
  };

  return {
    async flush(id, all) {
      // Out of the queue while this flush publishes, so the removal cannot leave with an older outbox.
      const earlier = take(id)?.published ?? [];
      const sent = new Set(earlier.map(entryKey));
      const { published, failed } = await publishEntries(
        js,
        all.filter((e) => !sent.has(entryKey(e))),
      );
      if (published.length > 0 || earlier.length > 0)
        queue({ id, published: [...earlier, ...published], all });
      if (failed !== undefined) throw failed;
    },
    take,
    requeue: queue,
    async drain() {
      await removeWaiting();
      await Promise.all(running);
    },
  };
}
