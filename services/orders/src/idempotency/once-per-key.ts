import type { Collection, Document, Filter } from "mongodb";

/** What a created order or payment remembers of the request's Idempotency-Key, scoped to the business. */
export interface Keyed {
  idempotencyKey?: string;
}

/** Absent when the request had no key: the field is left out of the document so the index skips it. */
export const scopedKey = (businessId: string, key: string | undefined): string | undefined =>
  key ? `${businessId}:${key}` : undefined;

/**
 * One document per (business, key), whichever of two racing creations inserts first. Unique and
 * sparse on a single field: documents created without a key have no such field and are not indexed.
 */
export async function ensureKeyIndex<D extends Document & Keyed>(col: Collection<D>): Promise<void> {
  await col.createIndex({ idempotencyKey: 1 }, { unique: true, sparse: true });
}

const byKey = <D extends Document & Keyed>(key: string) => ({ idempotencyKey: key }) as Filter<D>;

/** A retry of a creation that already finished: the document it made. */
export async function findByKey<D extends Document & Keyed>(
  col: Collection<D>,
  key: string | undefined,
): Promise<D | null> {
  return key ? ((await col.findOne(byKey<D>(key))) as D | null) : null;
}

/**
 * Inserts `doc`, unless a concurrent retry of the same request got there first: then its document is
 * the answer, and this one (never stored) is dropped. The unique index makes the choice, which holds
 * on FerretDB too, where a check followed by an insert would not. `insert` reports whether it stored.
 */
export async function insertOnce<D extends Document & Keyed>(
  col: Collection<D>,
  doc: D,
  insert: (doc: D) => Promise<boolean>,
): Promise<D> {
  if (await insert(doc)) return doc;
  const winner = await findByKey(col, doc.idempotencyKey);
  if (!winner) throw new Error("a document with the same id already exists");
  return winner;
}
