import type { JetStreamClient } from "@nats-io/jetstream";
import type { Collection, Document, Filter, OptionalUnlessRequiredId, UpdateFilter } from "mongodb";
import type { Claims } from "./claims.ts";
import { insertGrouped } from "./grouped-commands.ts";
import type { Logger } from "./logger.ts";
import {
  clearPending,
  deferOnFailure,
  entryKey,
  flushOutbox,
  holdsExactly,
  OUTBOX_PENDING,
  type OutboxEntry,
  type SweeperOptions,
  startOutboxSweeper,
  storedOutbox,
  type WithOutbox,
  type WriteGuard,
} from "./outbox.ts";
import { createOutboxRemovals, type OutboxRemovals, type WaitingRemoval } from "./outbox-removals.ts";
import type { Stoppable } from "./service.ts";
import { createWriteQueue } from "./write-queue.ts";

export interface StateChange<T extends Document, S extends string> {
  id: T["_id"];
  from: S;
  to: S;
  /**
   * What moves it (a deposit id, a result message id, "expiry"). Only one cause ever leaves a state;
   * the same cause may come back (a redelivered message after a crash) and finishes what it started.
   */
  cause: string;
  /** Fields to set besides the state, computed from the document as it is before the change. */
  set?: (current: T) => Partial<T>;
  /** Messages announcing the change, computed from the document as it is after; saved in the same update. */
  events?: (next: T) => OutboxEntry[];
  /**
   * The document as the caller last read it, if it did. In a store with `decidedBy`, the change is first
   * tried on it without reading the document again (see `StateStoreDeps.decidedBy`).
   */
  seen?: T | null;
}

/** Documents whose writes carry their own messages: insert with events, publish, sweep what a crash left. */
export interface OutboxCollection<T extends Document & WithOutbox> {
  /** Inserts a document (its outbox may already hold events) and publishes them; false if it existed. */
  insert(doc: OptionalUnlessRequiredId<T>): Promise<boolean>;
  /**
   * Publishes the document's outbox and queues the removal of what it published (`outbox-removals.ts`);
   * `stored` is the outbox as the database just returned it. A failure is logged and left to the sweep.
   */
  flush(id: T["_id"], stored?: OutboxEntry[]): Promise<void>;
  /** Writes every queued removal now and waits for it; stopping the sweeper does too. */
  drainRemovals(): Promise<void>;
  startSweeper(opts?: SweeperOptions): Stoppable;
}

/**
 * A collection of documents that move through states and announce each move through their outbox.
 * This is the only way any service changes a document's state: claim the exit, apply it conditionally
 * with its events in the same update, then publish (the sweeper covers a crash in between).
 */
export interface StateStore<T extends Document & WithOutbox, S extends string> extends OutboxCollection<T> {
  /**
   * Moves a document from `from` to `to` for `cause`. Returns the document after the change, or null
   * when the document is not there or another cause owns the way out of `from`.
   */
  transition(change: StateChange<T, S>): Promise<T | null>;
  /** Takes the way out of `from` without an update (a deletion, say); true when `cause` owns it. */
  claimExit(id: StateChange<T, S>["id"], from: S, to: S | "DELETED", cause: string): Promise<boolean>;
  /**
   * Deletes the document if it is still in `from`, as one of its writes (so no transition lands between
   * the check and the deletion); true when deleted. Claim the exit first with `claimExit`.
   */
  remove(id: StateChange<T, S>["id"], from: S): Promise<boolean>;
  /**
   * Sets fields of a document that is still in `state` and has the `match` values, as one of its
   * writes, without a change of state; true when set.
   */
  update(id: StateChange<T, S>["id"], state: S, match: Partial<T>, set: Partial<T>): Promise<boolean>;
}

export interface OutboxCollectionDeps<T extends Document & WithOutbox> {
  collection: Collection<T>;
  js: JetStreamClient;
  log: Logger;
  /**
   * Keeps other processes from writing a document while this one does (see `Claims.exclusive`).
   * Needed where documents are updated after their insert; insert-only documents can go without.
   */
  claims?: Claims;
  /** How long published entries wait for their removal (`REMOVAL_LINGER_MS` unless given: a test's). */
  removalLingerMs?: number;
}

export function createOutboxCollection<T extends Document & WithOutbox>(
  deps: OutboxCollectionDeps<T>,
): OutboxCollection<T> {
  const writes = documentWrites(deps);
  return outboxCollection(deps, writes, removalsOf(deps, writes));
}

/**
 * One document's writes, one at a time: in order within this process, and exclusive of other
 * processes' writes to it where the database needs that.
 */
function documentWrites<T extends Document & WithOutbox>(deps: OutboxCollectionDeps<T>): DocumentWrites {
  const queue = createWriteQueue();
  const name = deps.collection.collectionName;
  const { claims } = deps;
  return (id, write) =>
    queue(id, claims ? () => claims.exclusive(`${name}:${id}`, write, { keep: true }) : () => write(false));
}

/** Runs a write to one document; `alone` when no other process can write it meanwhile. */
type DocumentWrites = <R>(id: string, write: (alone: boolean) => Promise<R>) => Promise<R>;

/** Runs a write as one of the document's writes. */
const guardOf =
  (writes: DocumentWrites) =>
  (id: unknown): WriteGuard =>
  (write) =>
    writes(String(id), write);

/** The removals of entries this collection's flushes published, each made as one of its document's writes. */
function removalsOf<T extends Document & WithOutbox>(deps: OutboxCollectionDeps<T>, writes: DocumentWrites) {
  return createOutboxRemovals(deps.js, deps.collection, guardOf(writes), deps.log, deps.removalLingerMs);
}

/** The collection's writes, each document's through `writes`. */
function outboxCollection<T extends Document & WithOutbox>(
  deps: OutboxCollectionDeps<T>,
  writes: DocumentWrites,
  removals: OutboxRemovals<T["_id"]>,
): OutboxCollection<T> {
  const { collection: col, js, log } = deps;
  const guard = guardOf(writes);
  const flush = async (id: T["_id"], stored?: OutboxEntry[]) =>
    deferOnFailure((async () => removals.flush(id, stored ?? (await storedOutbox(col, id))))(), col, id, log);
  return {
    async insert(doc) {
      // An insert is atomic on both databases and rewrites nothing, so it needs no hold on the document.
      // Flagged when it carries entries, so a sweep finds them if this process dies before sending.
      // Sent with the collection's other inserts ready at the same moment, in one command.
      const created = await insertGrouped(
        col,
        doc.outbox.length > 0 ? { ...doc, [OUTBOX_PENDING]: true } : doc,
      );
      // Also on a duplicate: an earlier run may have stored it and died before publishing. Just
      // created, its outbox is what was inserted, no need to read it back: the removal sends these
      // values through the same serialisation the insert did, so they match what was stored.
      if (!created || doc.outbox.length > 0)
        await flush(doc._id as T["_id"], created ? doc.outbox : undefined);
      return created;
    },
    flush,
    drainRemovals: () => removals.drain(),
    startSweeper: (opts) => {
      const sweeper = startOutboxSweeper(
        js,
        col,
        log,
        opts,
        (id, queuedBefore) => flushOutbox(js, col, id, { queuedBefore, guard: guard(id) }),
        (id) => guard(id)(() => clearPending(col, id)),
      );
      return {
        async stop() {
          await sweeper.stop();
          await removals.drain();
        },
      };
    },
  };
}

export interface StateStoreDeps<T extends Document & WithOutbox> extends OutboxCollectionDeps<T> {
  /** The field holding the state. */
  stateField: keyof T & string;
  claims: Claims;
  /**
   * The fields besides the state that a change's `set` and `events` read from the document (`[]` when
   * they read none). Given, a change is first tried on a copy of the document this process already has
   * (what the caller passes as `seen`, or what this store last wrote or read of it), as one update whose
   * filter requires the state, these fields and the open exit to be as in that copy: the read before the
   * update is spared. Only when the stored document differs (another process moved it, or changed one of
   * these fields) is it read and the change made as without a copy. Not given, every change reads first.
   */
  decidedBy?: readonly (keyof T & string)[];
}

/** Documents a store remembers as it last wrote or read them; past this, the oldest are forgotten. */
const REMEMBERED_DOCUMENTS = 2_000;

export function createStateStore<T extends Document & WithOutbox, S extends string>(
  deps: StateStoreDeps<T>,
): StateStore<T, S> {
  const { collection: col, stateField, claims, log } = deps;
  const writes = documentWrites(deps);
  const removals = removalsOf(deps, writes);
  const exitKey = (id: unknown, from: string) => `${col.collectionName}:${String(id)}:${from}`;
  const byId = (id: unknown) => ({ _id: id }) as Filter<T>;
  /** The exit claimed in a document of its own, beside the document: atomic everywhere, one more write. */
  const claimBeside = (id: unknown, from: string, owner: string) => claims.claim(exitKey(id, from), owner);

  const { decidedBy } = deps;
  /** Copies of documents as this process last wrote or read them: the starting point of a change. */
  const remembered = new Map<string, T>();
  const remember = (doc: T) => {
    if (!decidedBy) return;
    const key = String(doc._id);
    remembered.delete(key);
    remembered.set(key, doc);
    if (remembered.size > REMEMBERED_DOCUMENTS) remembered.delete(remembered.keys().next().value as string);
  };

  /**
   * Runs `write` on a document only while it is in `state` with the `match` values, as one of its
   * writes. Not alone (MongoDB), the conditions go in the filter, which applies them atomically; alone,
   * nothing lands between this read and the write, and the filter stays on _id (FerretDB on SQLite reads
   * the whole collection for any other condition).
   */
  const whileIn = (
    id: StateChange<T, S>["id"],
    state: S,
    match: Partial<T>,
    write: (filter: Filter<T>) => Promise<boolean>,
  ) =>
    writes(String(id), async (alone) => {
      remembered.delete(String(id));
      if (!alone) return write({ _id: id, [stateField]: state, ...match } as Filter<T>);
      const doc = (await col.findOne(byId(id))) as T | null;
      if (doc?.[stateField] !== state) return false;
      for (const [field, value] of Object.entries(match)) if (doc[field] !== value) return false;
      return write(byId(id));
    });

  /**
   * The update of a change from `doc` (in `from`), its events computed as the document will be after it,
   * sent with `filter`; the document after the update, or null when the filter matched nothing.
   * With `absorbed` (entries this process published from the document and had yet to remove), the
   * update writes the outbox whole, without them: the removal costs no write of its own. Unless `exact`
   * (the document was read just now, and nothing else writes it), the filter then also requires the
   * outbox to be the one `doc` has.
   */
  async function apply(
    change: StateChange<T, S>,
    doc: T,
    filter: Filter<T>,
    alone: boolean,
    absorbed?: WaitingRemoval<T["_id"]>,
    exact = false,
  ) {
    const owner = `${change.to}|${change.cause}`;
    const set = { ...change.set?.(doc), [stateField]: change.to } as Partial<T>;
    const events = change.events?.({ ...doc, ...set } as T) ?? [];
    const sent = new Set(absorbed?.published.map(entryKey));
    const rewrite = doc.outbox.some((e) => sent.has(entryKey(e)));
    const outbox = rewrite ? [...doc.outbox.filter((e) => !sent.has(entryKey(e))), ...events] : [];
    const fields = alone ? { ...set, [`exits.${change.from}`]: owner } : set;
    const update = (rewrite
      ? {
          $set: { ...fields, outbox, ...(outbox.length ? { [OUTBOX_PENDING]: true } : {}) },
          ...(outbox.length ? {} : { $unset: { [OUTBOX_PENDING]: "" } }),
        }
      : {
          $set: { ...fields, ...(events.length ? { [OUTBOX_PENDING]: true } : {}) },
          ...(events.length ? { $push: { outbox: { $each: events } } } : {}),
        }) as unknown as UpdateFilter<T>;
    const sameOutbox = rewrite && !exact ? holdsExactly(doc.outbox) : {};
    return (await col.findOneAndUpdate({ ...filter, ...sameOutbox } as Filter<T>, update, {
      returnDocument: "after",
    })) as T | null;
  }

  /**
   * Whether the database can find a document by `_id` when the filter names more fields than `_id`.
   * FerretDB on PostgreSQL pushes the `_id` condition down and checks the others on the row it read;
   * FerretDB on SQLite pushes a filter down only when it is `_id` alone, and would read every document.
   */
  let findsByIdAmongOthers: Promise<boolean> | undefined;
  const idAmongOthers = () => {
    findsByIdAmongOthers ??= col
      .find({ _id: "explain", [stateField]: { $in: [] } } as Filter<T>)
      .explain()
      .then((plan) => (plan as { filterPushdown?: unknown }).filterPushdown === true)
      .catch(() => false);
    return findsByIdAmongOthers;
  };

  /**
   * A change tried on the copy this process has, with no read first: the update's filter requires what
   * the change was computed from. Null when there is no usable copy or the stored document differs.
   * The conditions besides `_id` are written with `$in`, which FerretDB never pushes down to PostgreSQL:
   * the row is found by its `_id` alone, however many other documents share the state.
   */
  async function fromCopy(change: StateChange<T, S>, alone: boolean, absorbed?: WaitingRemoval<T["_id"]>) {
    if (!decidedBy) return null;
    const copy = change.seen ?? remembered.get(String(change.id));
    if (copy?.[stateField] !== change.from) return null;
    if (alone && !(await idAmongOthers())) return null;
    const filter: Record<string, unknown> = { _id: change.id, [stateField]: { $in: [change.from] } };
    for (const field of decidedBy) filter[field] = { $in: [copy[field] ?? null] };
    // Alone, the exit is recorded in the document, and one recorded while the state stayed (a claim to
    // delete it) is for the read to judge. Not alone, the exit was claimed beside the document already.
    if (alone) filter[`exits.${change.from}`] = { $exists: false };
    return apply(change, copy, filter as Filter<T>, alone, absorbed);
  }

  const logChange = (change: StateChange<T, S>) =>
    log.info(
      { collection: col.collectionName, id: String(change.id), from: change.from, to: change.to },
      "state changed",
    );

  const collection = outboxCollection(deps, writes, removals);
  const store: StateStore<T, S> = {
    ...collection,
    async insert(doc) {
      const created = await collection.insert(doc);
      // A copy of the caller's object, which the caller may go on changing.
      if (created) remember({ ...doc } as unknown as T);
      return created;
    },

    claimExit: (id, from, to, cause) => {
      const owner = `${to}|${cause}`;
      return writes(String(id), async (alone) => {
        remembered.delete(String(id));
        if (!alone) return claimBeside(id, from, owner);
        // Alone, the exit is recorded in the document as a transition records it, so a transition reads
        // it with the document instead of reading a claim beside it.
        const doc = (await col.findOne(byId(id))) as (T & { exits?: Record<string, string> }) | null;
        const recorded = doc?.exits?.[from];
        if (recorded !== undefined) return recorded === owner;
        if (doc?.[stateField] !== from) return claimBeside(id, from, owner);
        const set = { $set: { [`exits.${from}`]: owner } } as unknown as UpdateFilter<T>;
        return (await col.updateOne(byId(id), set)).modifiedCount === 1;
      });
    },

    async transition(change) {
      const owner = `${change.to}|${change.cause}`;
      const moved = await writes(String(change.id), async (alone) => {
        // What this process published from the document and has yet to remove goes with this update.
        const absorbed = removals.take(change.id);
        const absorbedKeys = new Set(absorbed?.published.map(entryKey));
        let removed = false;
        // Removed once a document written holds none of them; else they go back to wait their turn.
        const applied = (doc: T | null) => {
          removed ||= doc !== null && !doc.outbox.some((e) => absorbedKeys.has(entryKey(e)));
          return doc;
        };
        try {
          // Not alone (MongoDB), the exit is claimed first and the update is conditional on the state.
          if (!alone && !(await claimBeside(change.id, change.from, owner))) return null;
          const changed = applied(await fromCopy(change, alone, absorbed));
          if (changed) {
            logChange(change);
            return changed;
          }
          let doc = (await col.findOne(byId(change.id))) as T | null;
          if (!doc) return null;
          if (alone) {
            // Alone, no other process writes the document meanwhile, so the state just read decides, and
            // the cause that leaves it is written into the same update (`exits`) instead of a claim of
            // its own, as `claimExit` writes it. A claim beside the document is read only for a document
            // no longer in `from` (its exit recorded by a version that claimed exits).
            const recorded = (doc as { exits?: Record<string, string> }).exits?.[change.from];
            const holder =
              recorded ??
              (doc[stateField] === change.from ? null : await claims.holder(exitKey(change.id, change.from)));
            if (holder !== null && holder !== owner) return null;
            // Never in `from`, or left it unrecorded: claimed as before, so a later cause finds it taken.
            if (holder === null && doc[stateField] !== change.from)
              return (await claimBeside(change.id, change.from, owner)) ? doc : null;
          }
          if (doc[stateField] === change.from) {
            // Alone, the state just read is the state updated; the filter stays on _id, which every FerretDB
            // backend serves from its index (on SQLite, any other condition reads the whole collection).
            const filter = (
              alone ? byId(change.id) : { _id: change.id, [stateField]: change.from }
            ) as Filter<T>;
            doc =
              // Not alone, the update also requires the outbox as read, and a miss would read as another
              // cause's move: it goes without them.
              applied(await apply(change, doc, filter, alone, alone ? absorbed : undefined, alone)) ??
              ((await col.findOne(byId(change.id))) as T | null);
            if (!doc) return null;
            logChange(change);
          }
          return doc;
        } finally {
          if (absorbed && !removed) removals.requeue(absorbed);
        }
      });
      if (moved) remember(moved);
      else remembered.delete(String(change.id));
      // The exit is this cause's: applied just now, or by an earlier run that died before publishing.
      if (moved && moved.outbox.length > 0) await store.flush(change.id, moved.outbox);
      return moved;
    },

    update: (id, state, match, set) =>
      whileIn(
        id,
        state,
        match,
        async (filter) => (await col.updateOne(filter, { $set: set } as UpdateFilter<T>)).modifiedCount === 1,
      ),

    remove: (id, from) =>
      whileIn(id, from, {}, async (filter) => (await col.deleteOne(filter)).deletedCount === 1),
  };
  return store;
}
