import type { JetStreamClient } from "@nats-io/jetstream";
import { Commands, Events, type StreamContract } from "@ramp/contracts";
import type { Collection, Document, Filter } from "mongodb";
import type { z } from "zod";
import { type GroupedUpdate, updateGrouped } from "./grouped-commands.ts";
import { publish } from "./jetstream.ts";
import type { Logger } from "./logger.ts";
import { startPeriodic } from "./periodic.ts";
import type { TraceContext } from "./trace.ts";

/**
 * A message saved in the same write as the state change that caused it, so nothing is lost between
 * "saved" and "published": the writer publishes it right after, and a sweeper re-sends whatever a
 * crash left behind. JetStream deduplicates by `msgId`, so sending an entry twice is harmless.
 */
export interface OutboxEntry {
  msgId: string;
  subject: string;
  payload: unknown;
  requestId: string;
  traceparent: string;
  /** When it was queued: the sweeper sends the oldest first. */
  at: Date;
}

export interface WithOutbox {
  outbox: OutboxEntry[];
}

const bySubject = new Map<string, StreamContract>(
  [...Object.values(Events), ...Object.values(Commands)].map((c) => [c.subject, c]),
);

export function outboxEntry<C extends StreamContract>(
  contract: C,
  payload: z.input<C["payload"]>,
  msgId: string,
  trace: TraceContext,
): OutboxEntry {
  return {
    msgId,
    subject: contract.subject,
    payload: contract.payload.parse(payload),
    requestId: trace.requestId,
    traceparent: trace.traceparent,
    at: new Date(),
  };
}

/**
 * Runs the removal of an entry as one of the document's writes (see state-store.ts): publishing needs
 * no guard, so a slow NATS never holds the document.
 */
export type WriteGuard = (write: () => Promise<void>) => Promise<void>;

export class OutboxStuck extends Error {
  override name = "OutboxStuck";
}

/**
 * Set (to true) on a document in the same write that queues entries in its outbox, and unset once the
 * outbox is empty: the sweep finds pending work by this equality alone, which MongoDB and
 * FerretDB both answer from an index, instead of a condition on `outbox.0.at` that FerretDB evaluates
 * by reading every document ever stored. Written only where entries are queued, and cleared by the write
 * that removes the last of them (or by a sweep), so it costs no write of its own.
 */
export const OUTBOX_PENDING = "outboxPending";

export interface FlushOptions {
  /** Only entries queued by then (a sweep leaves younger ones to their writer). */
  queuedBefore?: Date;
  /** Runs the removal as one of the document's writes. */
  guard?: WriteGuard;
  /**
   * The outbox as it is stored (what a transition's update answered with, or what an insert just
   * wrote): spares reading it again. Removal matches these values exactly.
   */
  stored?: OutboxEntry[];
}

/**
 * Publishes `entries` in order and says which went out: all of them, or those before the first that
 * failed (later entries wait for it: a consumer must never see a younger fact before an older), with
 * that failure.
 */
export async function publishEntries(
  js: JetStreamClient,
  entries: readonly OutboxEntry[],
): Promise<{ published: OutboxEntry[]; failed?: unknown }> {
  const published: OutboxEntry[] = [];
  for (const entry of entries) {
    try {
      const contract = bySubject.get(entry.subject);
      if (!contract) throw new OutboxStuck(`outbox entry ${entry.msgId} names an unknown subject`);
      await publish(js, contract, entry.payload as never, entry.msgId, {
        requestId: entry.requestId,
        traceparent: entry.traceparent,
      });
      published.push(entry);
    } catch (failed) {
      return { published, failed };
    }
  }
  return { published };
}

/**
 * A filter's conditions that the stored outbox is exactly `outbox` (not empty). Entries are appended and
 * removed only as a prefix, and message ids are unique, so an outbox of that size that starts with the
 * same entry holds exactly those entries. Written with `$in`, which FerretDB does not push down: the
 * row is still found by its `_id` alone.
 */
export const holdsExactly = (outbox: readonly OutboxEntry[]) => ({
  outbox: { $size: outbox.length },
  "outbox.0.msgId": { $in: [outbox[0]?.msgId] },
});

/** An entry's identity: its message id alone could be queued twice (a change re-sent after a crash). */
export const entryKey = (e: OutboxEntry) => `${e.msgId}@${e.at.getTime()}`;

/**
 * Removes published entries from a document's outbox in one write and checks that they are gone. `all`
 * is the outbox as last stored (what the caller read or the database answered). Run it as one of the
 * document's writes (`guard`).
 * Entries are removed by their whole stored value (`$pullAll`): FerretDB ignores `$pull` with a
 * condition (`{ msgId }`) and would keep every entry for ever, while exact values match on both
 * backends. Removals of other documents that are ready at the same moment go together in one `update`
 * command: under load, many removals cost one command.
 */
export async function removePublished<T extends Document & WithOutbox>(
  collection: Collection<T>,
  id: T["_id"],
  published: readonly OutboxEntry[],
  all: readonly OutboxEntry[],
): Promise<void> {
  if (published.length === 0) return;
  const byId = { _id: id } as Filter<T>;
  const pull = { $pullAll: { outbox: published } };
  // Everything stored was sent: the same write unsets the sweep's flag, which the sweep would
  // otherwise clear with one more write of its own. Only while the outbox holds exactly what was
  // stored (one queued meanwhile keeps the flag, for the sweep to find if its writer dies).
  const sent = new Set(published.map(entryKey));
  const emptying = all.length > 0 && all.every((e) => sent.has(entryKey(e)));
  const removal: GroupedUpdate = emptying
    ? {
        filter: { _id: id, ...holdsExactly(all) },
        update: { ...pull, $unset: { [OUTBOX_PENDING]: "" } },
      }
    : { filter: { _id: id }, update: pull };
  // Sent with the removals of other documents ready at the same moment, in one command.
  if (await updateGrouped(collection, removal)) return;
  if (emptying && (await collection.updateOne(byId, pull as never)).modifiedCount === 1) return;
  // Nothing removed: another flush (a sweep) got there first, or the removal did not match.
  const left = await collection.findOne(byId, { projection: { outbox: 1 } });
  const stuck = ((left?.outbox as OutboxEntry[] | undefined) ?? []).find((e) => sent.has(entryKey(e)));
  if (stuck) throw new OutboxStuck(`outbox entry ${stuck.msgId} was published but not removed`);
}

/** The outbox of a document as stored now (empty when the document is gone). */
export async function storedOutbox<T extends Document & WithOutbox>(
  collection: Collection<T>,
  id: T["_id"],
): Promise<OutboxEntry[]> {
  const doc = await collection.findOne({ _id: id } as Filter<T>, { projection: { outbox: 1 } });
  return (doc?.outbox as OutboxEntry[] | undefined) ?? [];
}

/**
 * Publishes what a document's outbox holds, in order, then removes every entry it published in one
 * write (`removePublished`). With `queuedBefore`, only entries queued by then are sent (a sweep leaves
 * younger ones to their writer). Throws when publishing fails (after removing what was published) or
 * an entry cannot be removed; callers use `flushOrDefer`.
 */
export async function flushOutbox<T extends Document & WithOutbox>(
  js: JetStreamClient,
  collection: Collection<T>,
  id: T["_id"],
  opts: FlushOptions = {},
): Promise<number> {
  const { queuedBefore, guard = (write) => write() } = opts;
  const all = opts.stored ?? (await storedOutbox(collection, id));
  const entries = queuedBefore ? all.filter((e) => e.at.getTime() <= queuedBefore.getTime()) : all;
  const { published, failed } = await publishEntries(js, entries);
  if (published.length > 0) await guard(() => removePublished(collection, id, published, all));
  if (failed !== undefined) throw failed;
  return published.length;
}

/**
 * Publishes and removes a document's outbox now (`flushOutbox`), under the one flush-failure policy
 * (`deferOnFailure`).
 */
export async function flushOrDefer<T extends Document & WithOutbox>(
  js: JetStreamClient,
  collection: Collection<T>,
  id: T["_id"],
  log: Logger,
  opts: Omit<FlushOptions, "queuedBefore"> = {},
): Promise<void> {
  await deferOnFailure(flushOutbox(js, collection, id, opts), collection, id, log);
}

/**
 * The one flush-failure policy: the state change is already saved with its messages, so a failed
 * publish is not the caller's failure. It is logged and left to the sweeper, which retries it.
 */
export async function deferOnFailure<T extends Document>(
  flush: Promise<unknown>,
  collection: Collection<T>,
  id: T["_id"],
  log: Logger,
): Promise<void> {
  await flush.catch((err: unknown) =>
    log.warn(
      { err, id: String(id), collection: collection.collectionName },
      "outbox flush deferred to sweeper",
    ),
  );
}

export interface SweeperOptions {
  intervalMs?: number;
  /** Documents read per page. */
  pageSize?: number;
  /** Entries younger than this are left to the writer that queued them. */
  graceMs?: number;
}

/** How a sweep sends one document's entries queued by `queuedBefore`; a store passes its own, serialized. */
export type SweepFlush<T extends Document & WithOutbox> = (
  id: T["_id"],
  queuedBefore: Date,
) => Promise<number>;

/** Clears the flag of a document whose outbox is empty (run as one of its writes). */
export type SweepClear<T extends Document & WithOutbox> = (id: T["_id"]) => Promise<void>;

/**
 * Re-sends anything a crash left in outboxes: at start-up, then `intervalMs` after each sweep ends, so
 * sweeps never overlap. It reads only flagged documents (`OUTBOX_PENDING`), so its cost follows the work
 * pending, never the documents stored; each page is sent oldest entry first. A document whose outbox is
 * empty has its flag cleared; one that fails is skipped for this sweep, never blocking the ones behind it.
 * Safe in every replica at once: publishing is deduplicated by msgId and removal is by exact value.
 */
export function startOutboxSweeper<T extends Document & WithOutbox>(
  js: JetStreamClient,
  collection: Collection<T>,
  log: Logger,
  opts: SweeperOptions = {},
  flush: SweepFlush<T> = (id, queuedBefore) => flushOutbox(js, collection, id, { queuedBefore }),
  clear: SweepClear<T> = (id) => clearPending(collection, id),
): { stop(): Promise<void>; sweep(): Promise<number> } {
  const intervalMs = opts.intervalMs ?? 2_000;
  const pageSize = opts.pageSize ?? 200;
  const graceMs = opts.graceMs ?? 1_000;
  let stopped = false;

  const sweep = async (): Promise<number> => {
    const before = new Date(Date.now() - graceMs);
    // Documents left flagged (young entries, a failed publish) come back in later pages of this
    // sweep; they are not visited twice, and the sweep ends at a page that brings nothing new.
    const seen = new Set<string>();
    let sent = 0;
    while (!stopped) {
      const limit = pageSize + seen.size;
      const page: Document[] = await collection
        .find({ [OUTBOX_PENDING]: true } as unknown as Filter<T>, { projection: { _id: 1, outbox: 1 } })
        .limit(limit)
        .toArray();
      const fresh = page.filter((d) => !seen.has(String(d._id))).sort((a, b) => firstAt(a) - firstAt(b));
      for (const doc of fresh) {
        seen.add(String(doc._id));
        try {
          const entries = (doc.outbox as OutboxEntry[] | undefined) ?? [];
          const due = entries.filter((e) => e.at.getTime() <= before.getTime()).length;
          if (due > 0) sent += await flush(doc._id, before);
          if (due === entries.length) await clear(doc._id);
        } catch (err) {
          log.warn(
            { err, id: String(doc._id), collection: collection.collectionName },
            "outbox sweep: entry left",
          );
        }
      }
      if (fresh.length === 0 || page.length < limit) break;
    }
    if (sent) log.info({ sent, collection: collection.collectionName }, "outbox sweep re-sent messages");
    return sent;
  };

  // Serves the flag's equality (sparse: only pending documents carry it); created once per start.
  const indexed = collection.createIndex({ [OUTBOX_PENDING]: 1 }, { sparse: true }).catch((err: unknown) => {
    log.warn({ err, collection: collection.collectionName }, "outbox index not created");
  });
  const loop = startPeriodic(
    `outbox sweep ${collection.collectionName}`,
    intervalMs,
    async () => {
      await indexed;
      return sweep();
    },
    log,
  );
  return {
    sweep,
    async stop() {
      stopped = true;
      await loop.stop();
    },
  };
}

const firstAt = (doc: Document) =>
  ((doc.outbox as OutboxEntry[] | undefined)?.[0]?.at.getTime() ?? 0) as number;

/**
 * Unsets the pending flag if the outbox is empty: the condition is in the filter, and callers that
 * share the document with other writers run it as one of its writes (FerretDB applies the filter and
 * the update apart).
 */
export async function clearPending<T extends Document & WithOutbox>(
  collection: Collection<T>,
  id: T["_id"],
): Promise<void> {
  await collection.updateOne(
    { _id: id, outbox: { $size: 0 } } as Filter<T>,
    { $unset: { [OUTBOX_PENDING]: "" } } as never,
  );
}
