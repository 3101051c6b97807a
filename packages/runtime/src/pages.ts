import { badRequest, type ConsoleListQuery } from "@ramp/contracts";
import { type Collection, type Document, type Filter, ObjectId, type WithId } from "mongodb";

/** The field a list is ordered by: an ObjectId (or its hex) that grows with time. */
interface PageKey<T> {
  field: string;
  read(doc: WithId<T>): string;
  parse(hex: string): unknown;
}

const byObjectId = <T extends Document>(): PageKey<T> => ({
  field: "_id",
  read: (doc) => (doc._id as ObjectId).toHexString(),
  parse: (hex) => new ObjectId(hex),
});

/**
 * One console page, newest first by an ObjectId (which grows with time): the cursor is the last one
 * shown, so a page is one index range however many documents there are, and a document added
 * meanwhile never repeats or shifts one.
 */
export async function pageBy<T extends Document, D>(
  collection: Collection<T>,
  key: PageKey<T>,
  filter: Filter<T>,
  { limit, cursor }: ConsoleListQuery,
  toDto: (doc: WithId<T>) => D,
): Promise<{ data: D[]; nextCursor: string }> {
  let query = filter;
  if (cursor !== undefined && cursor !== "") {
    if (!/^[0-9a-f]{24}$/.test(cursor)) throw badRequest("Invalid cursor");
    query = { $and: [filter, { [key.field]: { $lt: key.parse(cursor) } }] } as Filter<T>;
  }
  const docs = await collection
    .find(query)
    .sort({ [key.field]: -1 })
    .limit(limit + 1)
    .toArray();
  const more = docs.length > limit;
  const shown = more ? docs.slice(0, limit) : docs;
  const last = shown.at(-1);
  return { data: shown.map(toDto), nextCursor: more && last ? key.read(last) : "" };
}

export const pageById = <T extends { _id: ObjectId }, D>(
  collection: Collection<T>,
  filter: Filter<T>,
  page: ConsoleListQuery,
  toDto: (doc: WithId<T>) => D,
) => pageBy(collection, byObjectId<T>(), filter, page, toDto);

/** For documents keyed otherwise that carry an ObjectId's hex in `field` (API keys' `keyId`). */
export const hexKey = <T extends Document>(field: keyof T & string): PageKey<T> => ({
  field,
  read: (doc) => String(doc[field]),
  parse: (hex) => hex,
});
