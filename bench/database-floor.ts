/**
 * The database's own ceiling, to read the other benchmarks against: single-document inserts and
 * updates per second on the MongoDB-wire database the services would use (MONGODB_URI, else the local
 * one the bootstrap picks — FerretDB on RAMP_LOCAL_DB's backend on a machine without mongod). Bounded:
 * 3 × BENCH_DB_OPS (300).
 *
 *   pnpm exec tsx bench/database-floor.ts
 *   RAMP_LOCAL_DB=postgresql pnpm exec tsx bench/database-floor.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalDatabase } from "@ramp/devinfra";
import { MongoClient } from "mongodb";
import { envNumber, report } from "./support/report.ts";

const OPS = envNumber("BENCH_DB_OPS", 300);
const dir = mkdtempSync(join(tmpdir(), "ramp-dbfloor-"));
const local = process.env.MONGODB_URI ? undefined : await startLocalDatabase(dir);
const url = process.env.MONGODB_URI ?? local?.url ?? "";
const client = await MongoClient.connect(url);
try {
  const col = client.db(`bench_${Date.now()}`).collection<{ i: number; u?: number }>("ops");
  await col.createIndex({ i: 1 });
  const rate = async (what: string, key: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    const perSecond = OPS / ((performance.now() - started) / 1000);
    process.stdout.write(`${what}: ${perSecond.toFixed(0)}/s\n`);
    report({ key, label: `database ${what}`, value: perSecond, unit: "ops/s" });
  };
  process.stdout.write(`database: ${local?.kind ?? url}\n`);
  await rate("insertOne, one at a time", "db-insert-serial", async () => {
    for (let i = 0; i < OPS; i++) await col.insertOne({ i });
  });
  await rate(`insertOne, ${OPS} in parallel`, "db-insert-parallel", () =>
    Promise.all(Array.from({ length: OPS }, (_, i) => col.insertOne({ i: OPS + i }))),
  );
  await rate("updateOne by indexed field, one at a time", "db-update-serial", async () => {
    for (let i = 0; i < OPS; i++) await col.updateOne({ i }, { $set: { u: 1 } });
  });
} finally {
  await client.close();
  await local?.stop();
  rmSync(dir, { recursive: true, force: true });
}
