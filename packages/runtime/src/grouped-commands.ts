import {
  type Collection,
  type Document,
  type Filter,
  MongoBulkWriteError,
  type OptionalUnlessRequiredId,
} from "mongodb";
import { byCount, type GroupedOutcome, type GroupedWrites, groupedWrites } from "./grouped-writes.ts";
import { isDuplicateKey } from "./mongo.ts";

/** One statement of an `update` command: at most one document. */
export interface GroupedUpdate {
  filter: Document;
  update: Document;
  /** Inserts the document when the filter matches none (counted as changed). */
  upsert?: boolean;
}

/**
 * Statements in one `update` command at most. FerretDB 1.24 on PostgreSQL holds a pooled connection for
 * each statement of an `update` until the whole command ends: a command of as many statements as its pool
 * has connections (64 here) waits for ever for one more (measured: 60 statements in 0.46 s, 70 never).
 * Every service's commands share that pool, so each stays far below it.
 */
export const UPDATE_GROUP_MAX = 8;

const updates = new WeakMap<Collection<never>, GroupedWrites<GroupedUpdate>>();
const inserts = new WeakMap<Collection<never>, GroupedWrites<Document>>();

function per<W>(
  cache: WeakMap<Collection<never>, GroupedWrites<W>>,
  collection: Collection<Document>,
  make: () => GroupedWrites<W>,
): GroupedWrites<W> {
  const key = collection as unknown as Collection<never>;
  let group = cache.get(key);
  if (!group) {
    group = make();
    cache.set(key, group);
  }
  return group;
}

/**
 * Applies a single-document update, with the collection's other updates ready at the same moment in
 * one `update` command (grouped-writes.ts). That command answers only a count, so when it cannot say
 * whose update missed, each is sent again alone: only idempotent updates may come here. True when it is
 * known to have changed (or upserted) its document; false when it matched nothing, or when only its
 * second sending was counted and found the change already made.
 */
export async function updateGrouped<T extends Document>(
  collection: Collection<T>,
  write: GroupedUpdate,
): Promise<boolean> {
  const col = collection as unknown as Collection<Document>;
  const outcome = await per(updates, col, () =>
    groupedWrites(async (writes) => {
      const ops = writes.map((w) => ({
        updateOne: { filter: w.filter as Filter<Document>, update: w.update, upsert: w.upsert ?? false },
      }));
      const result = await col.bulkWrite(ops, { ordered: false });
      return byCount(result.modifiedCount + result.upsertedCount, writes.length);
    }, UPDATE_GROUP_MAX),
  ).run(write);
  if (outcome !== "unknown") return outcome === "modified";
  const alone = await col.updateOne(write.filter as Filter<Document>, write.update, {
    upsert: write.upsert ?? false,
  });
  return alone.modifiedCount + alone.upsertedCount === 1;
}

/**
 * Inserts a document, with the other inserts of the collection ready at the same moment in one
 * `insert` command; true when inserted, false when a document with its id is there already.
 */
export async function insertGrouped<T extends Document>(
  collection: Collection<T>,
  doc: OptionalUnlessRequiredId<T>,
): Promise<boolean> {
  const col = collection as unknown as Collection<Document>;
  const outcome = await per(inserts, col, () =>
    groupedWrites(async (docs) => {
      try {
        await col.insertMany(docs, { ordered: false });
        return docs.map((): GroupedOutcome => "modified");
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError)) throw err;
        // Unordered: every document not named by an error was inserted.
        const failed = new Map(
          (Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors]).map((e) => [e.index, e]),
        );
        return docs.map((_, i): GroupedOutcome => {
          const e = failed.get(i);
          if (!e) return "modified";
          return e.code === 11000 ? "unmodified" : "unknown";
        });
      }
    }),
  ).run(doc as Document);
  if (outcome !== "unknown") return outcome === "modified";
  // Its command failed or its own statement did: alone, its own error surfaces.
  try {
    await collection.insertOne(doc);
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}
