import { sha256Hex } from "@ramp/runtime";
import { type Collection, type Document, type Filter, ObjectId } from "mongodb";

/** What a created order or payment remembers of the request's Idempotency-Key, scoped to the business. */
export interface Keyed {
  idempotencyKey?: string;
}

/** Absent when the request had no key: the field is left out of the document so the index skips it. */
export const scopedKey = (businessId: string, key: string | undefined): string | undefined =>
  key ? `${businessId}:${key}` : undefined;

/**
 * The id of the document a creation makes: with a key, derived from it, so a retry finds its document
 * by `_id` — the one field every MongoDB-wire database looks up through an index (FerretDB scans the
 * whole collection for any other) — and a racing retry collides on it. A retry after a crash also asks
 * banking and chain-watcher for the same ref again, and gets the account or address it was given.
 */
export const idForKey = (key: string | undefined): ObjectId => (key ? derivedId(key) : new ObjectId());

/** An ObjectId that is a function of `text` (the first 12 bytes of its SHA-256): the same text, the same id. */
export const derivedId = (text: string): ObjectId => new ObjectId(sha256Hex(text).slice(0, 24));

/**
 * One document per (business, key), whichever of two racing creations inserts first. Unique and
 * sparse on a single field: documents created without a key have no such field and are not indexed.
 * It also guards documents stored before their ids were derived from their keys.
 */
export async function ensureKeyIndex<D extends Document & Keyed>(col: Collection<D>): Promise<void> {
  await col.createIndex({ idempotencyKey: 1 }, { unique: true, sparse: true });
}

/** A retry of a creation that already finished: the document it made. */
export async function findByKey<D extends Document & Keyed>(
  col: Collection<D>,
  key: string | undefined,
): Promise<D | null> {
  if (!key) return null;
  const doc = (await col.findOne({ _id: idForKey(key) } as Filter<D>)) as D | null;
  return doc?.idempotencyKey === key ? doc : null;
}

/**
 * Inserts `doc`, unless a concurrent retry of the same request got there first: then its document is
 * the answer, and this one (never stored) is dropped. The unique `_id` and key index make the choice,
 * which holds on FerretDB too, where a check followed by an insert would not. `insert` reports whether
 * it stored. The winner is looked up by the key field, so one stored under a random id is found too.
 */
export async function insertOnce<D extends Document & Keyed>(
  col: Collection<D>,
  doc: D,
  insert: (doc: D) => Promise<boolean>,
): Promise<D> {
  if (await insert(doc)) return doc;
  const key = doc.idempotencyKey;
  const winner = key ? ((await col.findOne({ idempotencyKey: key } as Filter<D>)) as D | null) : null;
  if (!winner) throw new Error("a document with the same id already exists");
  return winner;
}
