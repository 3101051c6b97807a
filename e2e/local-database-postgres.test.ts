import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureFerretDb, findPostgres, startFerretOnPostgres, TOOLS_DIR } from "@ramp/devinfra";
import { MongoClient, type MongoServerError } from "mongodb";
import { describe, expect, inject, it } from "vitest";

/** Pids whose parent is `pid` (Linux /proc): the server processes a PostgreSQL postmaster forks. */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // Fields after the command (in parentheses, which may hold spaces): state, then the parent pid.
        const stat = readFileSync(join("/proc", d, "stat"), "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("RAMP_LOCAL_DB=postgresql: FerretDB on a private PostgreSQL cluster", () => {
  it("stores and reads documents, keeps a unique _id to one winner, and stops everything it started", async () => {
    // `npm test` installs PostgreSQL before any test runs (scripts/test.ts); a test never installs.
    const postgresBin = findPostgres();
    expect(postgresBin, "PostgreSQL is not installed: run `npm test`, which installs it").toBeTruthy();
    const db = await startFerretOnPostgres(
      ensureFerretDb(TOOLS_DIR),
      postgresBin ?? "",
      inject("testDataDir"),
    );
    const postmaster = db.postgres.child.pid ?? 0;
    let serverProcesses: number[] = [];
    try {
      expect(db.kind).toBe("FerretDB (postgresql)");
      const client = await MongoClient.connect(db.url);
      try {
        const col = client.db("local_db").collection<{ _id: string; amount: string }>("claims");
        await col.insertOne({ _id: "order-1", amount: "10.50" });
        expect(await col.findOne({ _id: "order-1" })).toEqual({ _id: "order-1", amount: "10.50" });
        // Order transitions rely on this: of racing inserts of one _id, exactly one succeeds.
        const racing = await Promise.allSettled(
          Array.from({ length: 12 }, (_, i) => col.insertOne({ _id: "claim-1", amount: String(i) })),
        );
        expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of racing) {
          if (r.status === "rejected") expect((r.reason as MongoServerError).code).toBe(11000);
        }
        expect(await col.countDocuments({ _id: "claim-1" })).toBe(1);
      } finally {
        await client.close();
      }
      serverProcesses = childrenOf(postmaster);
      expect(serverProcesses.length).toBeGreaterThan(0);
    } finally {
      await db.stop();
    }
    expect(alive(postmaster)).toBe(false);
    expect(alive(db.child.pid ?? 0)).toBe(false);
    expect(serverProcesses.filter(alive)).toEqual([]);
    await expect(MongoClient.connect(db.url, { serverSelectionTimeoutMS: 1_000 })).rejects.toThrow();
  });
});
