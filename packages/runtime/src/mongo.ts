import { type Db, MongoClient } from "mongodb";

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

export async function connectMongo(uri: string, database: string): Promise<MongoHandle> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, appName: database });
  await client.connect();
  return { client, db: client.db(database), close: () => client.close() };
}

/** Mongo duplicate-key error, which is how a unique index tells us "already done". */
export function isDuplicateKey(err: unknown): boolean {
  return (
    typeof err === "object" && err !== null && "code" in err && (err as { code: unknown }).code === 11000
  );
}
