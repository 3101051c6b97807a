import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ensureFerretDb,
  findPostgres,
  prepareForFerretDb,
  psql,
  startFerretOnPostgres,
  TOOLS_DIR,
} from "@ramp/devinfra";
import { type Collection, MongoClient, type MongoServerError } from "mongodb";
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

  /** FerretDB on PostgreSQL with a client, psql, and a collection whose table no vacuum or analyze touches. */
  async function withCollection(
    name: string,
    run: (t: Collection<Doc>, sql: Sql, prepareAgain: () => void) => Promise<void>,
  ) {
    const postgresBin = findPostgres() ?? "";
    const db = await startFerretOnPostgres(ensureFerretDb(TOOLS_DIR), postgresBin, inject("testDataDir"));
    const client = await MongoClient.connect(db.url);
    try {
      const col = client.db("local_db").collection<Doc>(name);
      await col.createIndex({ outboxPending: 1 }, { sparse: true });
      const sql: Sql = (query) => psql(postgresBin, db.postgres, ["-A", "-t", "-F", " ", "-c", query]).trim();
      const table = sql(
        `select 'local_db.' || tablename from pg_tables where schemaname = 'local_db' and tablename like '${name}%'`,
      );
      // What a long gap between two autovacuum runs leaves: no ANALYZE re-plans, no VACUUM tidies.
      sql(`alter table ${table} set (autovacuum_enabled = false)`);
      // What a start on a kept cluster runs again before FerretDB.
      const prepareAgain = () => prepareForFerretDb(postgresBin, db.postgres);
      await run(col, (query) => sql(query.replaceAll("$table", table)), prepareAgain);
    } finally {
      await client.close();
      await db.stop();
    }
  }
  const insert = async (col: Collection<Doc>, prefix: string, count: number) => {
    for (let done = 0; done < count; done += 1_000)
      await col.insertMany(Array.from({ length: 1_000 }, (_, i) => ({ _id: `${prefix}-${done + i}` })));
  };

  it("answers a sweep's equality from its index after the collection grew from a few documents", async () => {
    await withCollection("sweeps", async (col, sql) => {
      await col.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `small-${i}` })));
      const sweep = () => col.find({ outboxPending: true }).limit(200).toArray();
      // A statement is planned for its values five times; then PostgreSQL may keep a generic plan.
      for (let i = 0; i < 20; i++) await sweep();
      await insert(col, "grown", 5_000);
      for (let i = 0; i < 20; i++) expect(await sweep()).toEqual([]);
      const counters = () => {
        const [seqScans, seqRows, indexScans] = sql(
          "select seq_scan, seq_tup_read, coalesce(idx_scan, 0) from pg_stat_user_tables where relid = '$table'::regclass",
        )
          .split(" ")
          .map(Number);
        return { scans: (seqScans ?? 0) + (indexScans ?? 0), seqRows: seqRows ?? 0 };
      };
      // A server process reports its counters after it has been idle a while: wait for all 40 scans.
      let read = counters();
      for (const deadline = Date.now() + 30_000; read.scans < 40 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 250));
        read = counters();
      }
      expect(read.scans).toBeGreaterThanOrEqual(40);
      // A generic plan would have read the whole collection (5,020 rows) on nearly every sweep since.
      expect(read.seqRows).toBeLessThan(5_000);
    });
  });

  it("finds a document by _id reading a few pages, however many were inserted since the last vacuum", async () => {
    await withCollection("lookups", async (col, sql) => {
      await insert(col, "order", 10_000);
      expect(await col.findOne({ _id: "order-4321" })).toEqual({ _id: "order-4321" });
      // The statement FerretDB sends for that findOne (its pushed-down equality), as PostgreSQL runs it.
      const [plan] = JSON.parse(
        sql(
          `explain (analyze, buffers, format json) select _jsonb from $table where _jsonb->'_id' @> '"order-4321"'`,
        ),
      ) as [{ Plan: { "Actual Rows": number; "Shared Hit Blocks": number; "Shared Read Blocks": number } }];
      expect(plan.Plan["Actual Rows"]).toBe(1);
      // Its index and the row: a handful of pages. A GIN pending list of 10,000 entries, which every
      // search reads whole, would add about 30.
      expect(plan.Plan["Shared Hit Blocks"] + plan.Plan["Shared Read Blocks"]).toBeLessThan(10);
    });
  });

  it("keeps one containment index per field, however many of the collection's indexes lead with it", async () => {
    await withCollection("orders", async (col, sql, prepareAgain) => {
      // Three of the orders collection's indexes lead with its status.
      await col.createIndex({ status: 1, expiresAt: 1 });
      await col.createIndex({ status: 1, updatedAt: 1 });
      await col.createIndex({ status: 1 }, { name: "completed_by_day" });
      await insert(col, "order", 2_000);
      await col.updateOne({ _id: "order-7" }, { $set: { status: "COMPLETED" } });
      const twins = () =>
        sql(
          "select pg_get_indexdef(indexrelid, 1, true) from pg_index i join pg_class c on c.oid = i.indexrelid " +
            "join pg_am a on a.oid = c.relam where indrelid = '$table'::regclass and a.amname = 'gin' order by 1",
        ).split("\n");
      const indexes = twins();
      // Each rewrite of a row adds an entry to every index of its table: a second twin of status is
      // upkeep that answers nothing the first does not.
      expect(indexes).toEqual([
        "(_jsonb -> '_id'::text)",
        "(_jsonb -> 'outboxPending'::text)",
        "(_jsonb -> 'status'::text)",
      ]);
      expect(await col.find({ status: "COMPLETED" }).toArray()).toEqual([
        { _id: "order-7", status: "COMPLETED" },
      ]);
      const [plan] = JSON.parse(
        sql(`explain (format json) select _jsonb from $table where _jsonb->'status' @> '"COMPLETED"'`),
      ) as [{ Plan: { "Node Type": string; Plans?: { "Node Type": string }[] } }];
      expect(JSON.stringify(plan.Plan)).toContain("Bitmap Index Scan");
      // A cluster kept from before, with a second twin of status: its next start drops it.
      sql(`create index orders_status_again_gin on $table using gin ((_jsonb -> 'status') jsonb_path_ops)`);
      prepareAgain();
      expect(twins()).toEqual(indexes);
    });
  });
});

type Doc = { _id: string; outboxPending?: boolean; status?: string };
type Sql = (query: string) => string;
