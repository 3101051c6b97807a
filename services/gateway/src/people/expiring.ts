import type { Collection, Document } from "mongodb";

/**
 * An index on `expiresAt`, a TTL index where the database has them. FerretDB 1.24 answers "not
 * implemented" to TTL indexes, so the stores also delete what expired whenever they add a document
 * (one index range): reads never depend on either, they check `expiresAt` themselves.
 */
export async function expiringIndex<T extends Document>(collection: Collection<T>): Promise<void> {
  try {
    await collection.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
  } catch {
    await collection.createIndex({ expiresAt: 1 });
  }
}

export const dropExpired = <T extends Document>(collection: Collection<T>, now: number) =>
  collection.deleteMany({ expiresAt: { $lte: new Date(now) } } as never);
