import { badRequest } from "@ramp/contracts";
import { type Collection, type Document, type Filter, ObjectId, type WithId } from "mongodb";
import type { Logger } from "./logger.ts";
import { isDuplicateKey } from "./mongo.ts";

/**
 * Newest-first lists whose every read is an equality, so that FerretDB (which pushes down equalities
 * but sorts, limits and filters ranges in Go after reading every row the equality matched) reads about
 * one page's worth of rows whatever the history, as MongoDB does from an index.
 *
 * Each listed document carries `listKey`, the key of its leaf bucket: its list scope (a business) and
 * the minute of its time. A page reads leaves one equality at a time, newest first. Which leaves exist
 * comes from marks, small documents naming a bucket and its parent, at widths growing from a minute
 * to about three years, so a walk skips empty stretches in a few reads: each read lists one bucket's
 * non-empty children (at most 60, 24, 32 or 32). A leaf holds what one scope stored in one minute,
 * which follows the rate orders arrive at, never the history.
 *
 * A document's marks are written before it is (a mark of nothing costs one empty read; a document
 * without its marks would be missing from the list), each once per process.
 */
const WIDTHS_MS = [60_000, 3_600_000, 86_400_000, 32 * 86_400_000, 1024 * 86_400_000] as const;
const TOP = WIDTHS_MS.length;
const LEAF_MS = WIDTHS_MS[0];
const width = (level: number) => WIDTHS_MS[level] ?? Number.POSITIVE_INFINITY;

/** A bucket of a scope that holds something: `_id` is `<scope>:<level>:<n>`, `up` its parent's `_id`. */
export interface ListMark {
  _id: string;
  up: string;
  n: number;
}

/** A position in a list: its order is `at` descending, then `id` descending. */
export interface ListPosition {
  at: Date;
  id: ObjectId;
}

export interface TimeListed {
  _id: ObjectId;
}

const markId = (scope: string, level: number, n: number) =>
  level >= TOP ? `${scope}:top` : `${scope}:${level}:${n}`;

/** The key of the leaf bucket holding what `scope` stores at `at`. */
export const listKeyOf = (scope: string, at: Date) => markId(scope, 0, Math.floor(at.getTime() / LEAF_MS));

/** The marks a document of `scope` at `at` needs: its leaf's and every bucket's above it. */
export function listMarksOf(scope: string, at: Date): ListMark[] {
  const t = at.getTime();
  return WIDTHS_MS.map((w, level) => {
    const n = Math.floor(t / w);
    return {
      _id: markId(scope, level, n),
      up: markId(scope, level + 1, Math.floor(t / width(level + 1))),
      n,
    };
  });
}

/** Stores marks, those already there left as they are. */
export async function insertListMarks(marks: Collection<ListMark>, docs: ListMark[]): Promise<void> {
  if (docs.length === 0) return;
  try {
    await marks.insertMany(docs, { ordered: false });
  } catch (err) {
    const errors = (err as { writeErrors?: unknown[] }).writeErrors;
    const onlyDuplicates = Array.isArray(errors) && errors.length > 0 && errors.every(isDuplicateKey);
    if (!onlyDuplicates && !isDuplicateKey(err)) throw err;
  }
}

/** How much one page may read before it answers with what it has and a cursor to go on from. */
export interface ListBudget {
  leaves: number;
  rows: number;
}

export const LIST_BUDGET: ListBudget = { leaves: 120, rows: 6_000 };

export interface ListPage<T> {
  docs: T[];
  /** Where the next page starts, or null when nothing older matches. */
  next: ListPosition | null;
}

export interface TimeList<T extends TimeListed> {
  /** Indexes, and whether every stored document has its key (`ready`). */
  init(): Promise<void>;
  /** False until documents stored before this list existed have their keys (`backfill`). */
  ready(): boolean;
  /** The documents with their key, after their marks are stored: insert what this returns. */
  keyed<D extends T>(docs: D[]): Promise<D[]>;
  /**
   * Up to `limit` documents of `scope` matching the equalities in `match` and at in [from, to),
   * strictly after `after`, newest first. Fewer, with a `next`, when the page spent its budget.
   */
  page(
    scope: string,
    match: Filter<T>,
    range: TimeRange,
    after: ListPosition | null,
    limit: number,
  ): Promise<ListPage<WithId<T>>>;
  /** `page` over several scopes at once, as one list. */
  pageMany(
    scopes: string[],
    match: Filter<T>,
    range: TimeRange,
    after: ListPosition | null,
    limit: number,
  ): Promise<ListPage<WithId<T>>>;
  /**
   * Keys what was stored before this list existed, once per database: the one read of the whole
   * collection, at the first start that has lists (later starts find it done and read nothing).
   * `setKey` writes one document's key (through its owner's guarded write where others update it).
   * Returns early, to go on at the next start, once `stopping` says so.
   */
  backfill(deps: {
    setKey: (doc: T, listKey: string) => Promise<unknown>;
    log: Logger;
    stopping: () => boolean;
  }): Promise<void>;
}

export interface TimeRange {
  from?: Date;
  to?: Date;
}

const ZERO_ID_HEX = "0".repeat(24);
const CURSOR_SHAPE = /^(\d{1,15})\.([0-9a-f]{24})$/;

/**
 * A list's cursor is opaque to clients (base64url) so its shape can change without breaking them;
 * inside it is `<at ms>.<id>`, the position the list is sorted on: the last document a page showed,
 * or (id all zeros) the edge of the history a page that spent its budget read down to. A position,
 * not an offset: documents stored while a client pages sort before it, so later pages neither repeat
 * nor skip.
 */
export function encodeListCursor(p: ListPosition): string {
  return Buffer.from(`${p.at.getTime()}.${p.id.toHexString()}`, "utf8").toString("base64url");
}

/** Anything that did not come from `encodeListCursor` → 400 `Invalid cursor`. */
export function decodeListCursor(cursor: string): ListPosition {
  const invalid = () => badRequest("Invalid cursor");
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  const match = CURSOR_SHAPE.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match?.[1] || !match[2]) throw invalid();
  const at = new Date(Number(match[1]));
  if (Number.isNaN(at.getTime())) throw invalid();
  return { at, id: new ObjectId(match[2]) };
}
const before = (a: ListPosition, b: ListPosition) =>
  a.at.getTime() < b.at.getTime() ||
  (a.at.getTime() === b.at.getTime() && a.id.toHexString() < b.id.toHexString());
/** The lower edge of a leaf, as a position: everything in that leaf comes before it. */
const leafEdge = (n: number): ListPosition => ({ at: new Date(n * LEAF_MS), id: new ObjectId(ZERO_ID_HEX) });

/** Stored among the marks once every document has its key in `field`; no walk reads it (`up` is ""). */
const doneMark = (field: string): ListMark => ({ _id: `backfill:${field}`, up: "", n: 0 });
const BACKFILL_BATCH = 500;

export function createTimeList<T extends TimeListed & Document>(deps: {
  docs: Collection<T>;
  marks: Collection<ListMark>;
  /** The time a document is listed at, and the list it belongs to. */
  at: (doc: T) => Date;
  scopeOf: (doc: T) => string;
  /** The field holding a document's key: `listKey` unless a collection has several lists. */
  field?: string;
  budget?: ListBudget;
}): TimeList<T> {
  const { docs, marks, at, scopeOf } = deps;
  const field = deps.field ?? "listKey";
  const DONE = doneMark(field);
  const budget = deps.budget ?? LIST_BUDGET;
  // Marks this process knows are stored; forgotten wholesale when large (re-inserting one is harmless).
  const known = new Set<string>();
  let ready = false;

  const children = async (parent: string) =>
    (await marks.find({ up: parent }, { projection: { n: 1 } }).toArray()).map((m) => m.n);

  /** Non-empty leaves of `scope` with any time in [floorMs, startMs], newest first. */
  async function* leaves(scope: string, startMs: number, floorMs: number): AsyncGenerator<number> {
    // The buckets holding startMs are asked for their children all at once: the walk starts down
    // that path (a cursor's position is in a stored leaf), so it costs one round trip, not one a level.
    const asked = new Map<string, Promise<number[]>>();
    const childrenOf = (parent: string) => {
      const got = asked.get(parent) ?? children(parent);
      asked.set(parent, got);
      return got;
    };
    const path = Math.min(startMs, Date.now());
    for (let level = TOP; level >= 1; level--)
      void childrenOf(markId(scope, level, Math.floor(path / width(level)))).catch(() => {});
    async function* below(level: number, parent: string): AsyncGenerator<number> {
      const w = width(level);
      const cap = Math.floor(startMs / w);
      const ns = (await childrenOf(parent)).filter((n) => n <= cap).sort((a, b) => b - a);
      for (const n of ns) {
        if ((n + 1) * w <= floorMs) return;
        if (level === 0) yield n;
        else yield* below(level - 1, markId(scope, level, n));
      }
    }
    yield* below(TOP - 1, markId(scope, TOP, 0));
  }

  const positionOf = (doc: T): ListPosition => ({ at: at(doc), id: doc._id });
  const byNewest = (a: WithId<T>, b: WithId<T>) => (before(positionOf(b as T), positionOf(a as T)) ? -1 : 1);

  const page: TimeList<T>["page"] = async (scope, match, { from, to }, after, limit) => {
    // A resume position (id zero) is a leaf's lower edge: that leaf was read to its end already.
    const afterMs = after ? after.at.getTime() - (after.id.toHexString() === ZERO_ID_HEX ? 1 : 0) : Infinity;
    const startMs = Math.min(afterMs, to ? to.getTime() - 1 : Infinity, Date.now() + 86_400_000);
    const floorMs = from?.getTime() ?? Number.NEGATIVE_INFINITY;
    const keep = (doc: WithId<T>) => {
      const t = at(doc as T).getTime();
      if (from && t < from.getTime()) return false;
      if (to && t >= to.getTime()) return false;
      return !after || before(positionOf(doc as T), after);
    };

    const out: WithId<T>[] = [];
    const walk = leaves(scope, startMs, floorMs);
    let leavesRead = 0;
    let rowsRead = 0;
    let batch = Math.min(limit + 1, 4);
    let lastLeaf: number | undefined;
    while (out.length <= limit) {
      if (leavesRead >= budget.leaves || rowsRead >= budget.rows)
        return { docs: out, next: lastLeaf === undefined ? null : leafEdge(lastLeaf) };
      const ns: number[] = [];
      while (ns.length < Math.min(batch, budget.leaves - leavesRead)) {
        const step = await walk.next();
        if (step.done) break;
        ns.push(step.value);
      }
      if (ns.length === 0) return { docs: out.slice(0, limit), next: null };
      leavesRead += ns.length;
      const read = await Promise.all(
        ns.map((n) => docs.find({ ...match, [field]: markId(scope, 0, n) } as Filter<T>).toArray()),
      );
      for (const rows of read) {
        rowsRead += rows.length;
        out.push(...rows.filter(keep).sort(byNewest));
      }
      lastLeaf = ns.at(-1);
      // As many leaves next as those read so far suggest the page still needs: a busy minute fills
      // a page alone, while sparse history is read many minutes at a time.
      const perLeaf = Math.max(out.length / leavesRead, 0.25);
      batch = Math.min(Math.max(Math.ceil((limit + 1 - out.length) / perLeaf), 1), 16);
    }
    await walk.return(undefined);
    const shown = out.slice(0, limit);
    const last = shown.at(-1);
    return { docs: shown, next: last ? positionOf(last as T) : null };
  };

  const keyed = async <D extends T>(batch: D[]): Promise<D[]> => {
    const due = new Map<string, ListMark>();
    for (const doc of batch)
      for (const m of listMarksOf(scopeOf(doc), at(doc))) if (!known.has(m._id)) due.set(m._id, m);
    await insertListMarks(marks, [...due.values()]);
    if (known.size > 50_000) known.clear();
    for (const id of due.keys()) known.add(id);
    return batch.map((doc) => ({ ...doc, [field]: listKeyOf(scopeOf(doc), at(doc)) }));
  };

  return {
    async init() {
      await docs.createIndex({ [field]: 1 } as never);
      await marks.createIndex({ up: 1 });
      // Done already, or nothing stored yet (an unfiltered `findOne` reads one row on FerretDB too).
      ready = (await marks.findOne({ _id: DONE._id })) !== null;
      if (!ready && !(await docs.findOne({}, { projection: { _id: 1 } }))) {
        await insertListMarks(marks, [DONE]);
        ready = true;
      }
    },
    ready: () => ready,
    keyed,
    page,
    async pageMany(scopes, match, range, after, limit) {
      if (scopes.length === 1) return page(scopes[0] as string, match, range, after, limit);
      const pages = await Promise.all(scopes.map((s) => page(s, match, range, after, limit)));
      // Each scope's page is complete down to its last document if it is full, down to its `next` if
      // it ran out of budget, and to the end if it has no `next`: the merged page can only show what
      // every scope is complete down to.
      let floor: ListPosition | null = null;
      for (const p of pages) if (p.next && (!floor || before(floor, p.next))) floor = p.next;
      const merged = pages
        .flatMap((p) => p.docs)
        .filter((d) => !floor || !before(positionOf(d as T), floor))
        .sort(byNewest);
      const shown = merged.slice(0, limit);
      const last = shown.at(-1);
      if (merged.length > limit && last) return { docs: shown, next: positionOf(last as T) };
      return { docs: shown, next: floor };
    },
    async backfill({ setKey, log, stopping }) {
      if (ready) return;
      const cursor = docs.find({}).batchSize(BACKFILL_BATCH);
      let count = 0;
      let batch: T[] = [];
      const flush = async () => {
        const withKeys = await keyed(batch);
        await Promise.all(withKeys.map((d) => setKey(d, (d as Document)[field] as string)));
        count += batch.length;
        batch = [];
      };
      try {
        for await (const doc of cursor as AsyncIterable<T>) {
          if ((doc as Document)[field]) continue;
          batch.push(doc);
          if (batch.length >= BACKFILL_BATCH) await flush();
          if (stopping()) return;
        }
      } finally {
        await cursor.close();
      }
      await flush();
      await insertListMarks(marks, [DONE]);
      ready = true;
      if (count > 0)
        log.info({ collection: docs.collectionName, field, count }, "documents keyed for their list");
    },
  };
}
