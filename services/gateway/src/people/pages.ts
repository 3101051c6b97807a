import { badRequest, type ConsoleListQuery } from "@ramp/contracts";
import { type Collection, type Filter, ObjectId, type WithId } from "mongodb";

/**
 * One console page, newest first by `_id` (an ObjectId grows with time): the cursor is the last
 * `_id` shown, so a page is one index range however many documents there are, and a document added
 * meanwhile never repeats or shifts one.
 */
export async function pageById<T extends { _id: ObjectId }, D>(
  collection: Collection<T>,
  filter: Filter<T>,
  { limit, cursor }: ConsoleListQuery,
  toDto: (doc: WithId<T>) => D,
): Promise<{ data: D[]; nextCursor: string }> {
  let after: ObjectId | undefined;
  if (cursor !== undefined && cursor !== "") {
    if (!ObjectId.isValid(cursor) || !/^[0-9a-f]{24}$/.test(cursor)) throw badRequest("Invalid cursor");
    after = new ObjectId(cursor);
  }
  const query = (after ? { $and: [filter, { _id: { $lt: after } }] } : filter) as Filter<T>;
  const docs = await collection
    .find(query)
    .sort({ _id: -1 })
    .limit(limit + 1)
    .toArray();
  const more = docs.length > limit;
  const shown = more ? docs.slice(0, limit) : docs;
  const last = shown.at(-1);
  return { data: shown.map(toDto), nextCursor: more && last ? last._id.toHexString() : "" };
}
