import type { NatsConnection } from "@nats-io/transport-node";
import { HoldBuckets } from "@ramp/contracts";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { type Claims, createClaims, createLogger, openKvHoldLocks } from "@ramp/runtime";
import { MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Bursts of 4 writes of one document from each of two replicas, with gaps longer and shorter than a
 * hold is kept: 48 writes, and how many of them ran while another held ran (a write told it runs alone).
 */
async function burstsFromTwoReplicas(replicas: Claims[]) {
  let inside = 0;
  let overlaps = 0;
  let writes = 0;
  const write = async (alone: boolean) => {
    inside++;
    if (inside > 1 && alone) overlaps++;
    await sleep(Math.random() * 5);
    inside--;
    writes++;
  };
  await Promise.all(
    replicas.map(async (claims, r) => {
      for (let burst = 0; burst < 6; burst++) {
        await Promise.all(Array.from({ length: 4 }, () => claims.exclusive("doc-1", write, { keep: true })));
        await sleep(burst % 2 === r ? 10 : 150);
      }
    }),
  );
  return { writes, overlaps };
}

describe("a document's writes held against other processes (Claims.exclusive)", () => {
  it("never overlap across processes, while a process's back-to-back writes share one hold", async () => {
    // Claims taken, counted from what the driver sends.
    const watched = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
    let claimsTaken = 0;
    watched.on("commandSucceeded", (e) => {
      if (e.commandName === "insert" && (e.reply as { n?: number }).n === 1) claimsTaken++;
    });
    const db = watched.db(`t${new ObjectId().toHexString().slice(-8)}_hold`);
    // Two Claims of their own, as two replicas have.
    const replicas = [createClaims(db), createClaims(db)];
    const { writes, overlaps } = await burstsFromTwoReplicas(replicas);
    expect(writes).toBe(48);
    const info = await watched.db("admin").command({ buildInfo: 1 });
    await watched.close();
    // MongoDB applies each update atomically: there a write runs at once and takes no claim at all.
    if (!("ferretdbVersion" in info)) return void expect(claimsTaken).toBe(0);
    expect(overlaps).toBe(0);
    // One claim per write would be 48 (FerretDB: each a write of its own, and another for its release).
    expect(claimsTaken).toBeLessThan(writes / 2);
  });
});

describe("a lapsed lease (a holder that died)", () => {
  it("is taken over by exactly one of many replicas racing for it", async () => {
    const client = await MongoClient.connect(inject("mongoUrl"));
    const db = client.db(`t${new ObjectId().toHexString().slice(-8)}_takeover`);
    try {
      for (let round = 0; round < 5; round++) {
        const key = `send:BASE:${round}`;
        // The dead holder's claim, its lease already run out.
        expect(await createClaims(db).claim(key, "dead-replica", 1)).toBe(true);
        await sleep(20);
        const replicas = Array.from({ length: 8 }, () => createClaims(db));
        const won = await Promise.all(replicas.map((c, i) => c.claim(key, `replica-${i}`, 30_000)));
        // Before, two replicas could each delete the claim the other had just inserted, and both hold
        // the treasury's send lock.
        expect(won.filter(Boolean)).toHaveLength(1);
        const holder = await replicas[0]!.holder(key);
        expect(holder).toBe(`replica-${won.indexOf(true)}`);
      }
    } finally {
      await client.close();
    }
  });
});

describe("holds in the service's NATS KV bucket (as the services run)", () => {
  let nats: TestNats;
  const conns: NatsConnection[] = [];
  const log = createLogger("test", "silent");
  // Short, so a dead holder's hold runs out within the test.
  const leaseMs = 2_000;
  const holdLocks = async () => {
    const nc = await nats.connectAs("orders");
    conns.push(nc);
    return { nc, locks: await openKvHoldLocks(nc, HoldBuckets.orders, { replicas: 1, log, leaseMs }) };
  };
  beforeAll(async () => {
    nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  });
  afterAll(async () => {
    await Promise.all(conns.map((nc) => nc.close().catch(() => undefined)));
    await nats?.stop();
  });

  it("keep two replicas' writes of a document apart without a database write of their own", async () => {
    const watched = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
    let databaseWrites = 0;
    watched.on("commandSucceeded", (e) => {
      if (["insert", "update", "delete", "findAndModify"].includes(e.commandName)) databaseWrites++;
    });
    const db = watched.db(`t${new ObjectId().toHexString().slice(-8)}_kvhold`);
    const replicas = [
      createClaims(db, { holds: (await holdLocks()).locks }),
      createClaims(db, { holds: (await holdLocks()).locks }),
    ];
    const { writes, overlaps } = await burstsFromTwoReplicas(replicas);
    await watched.close();
    expect(writes).toBe(48);
    expect(overlaps).toBe(0);
    expect(databaseWrites).toBe(0);
  });

  it("a holder that died frees its hold after the lease; a late release never frees another's", async () => {
    const dead = await holdLocks();
    const late = await holdLocks();
    const other = (await holdLocks()).locks;
    expect(await dead.locks.take("write:orders:1", "dead")).toBe(true);
    expect(await late.locks.take("write:orders:2", "late")).toBe(true);
    expect(await other.take("write:orders:1", "other")).toBe(false);
    expect(await other.held("write:orders:1")).toBe(true);
    // Killed while holding: nothing gives it back.
    await dead.nc.close();
    const deadline = Date.now() + 20_000;
    while (!(await other.take("write:orders:1", "other"))) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(200);
    }
    // A holder that paused past its lease: another takes the hold, and its late release leaves it be.
    while (!(await other.take("write:orders:2", "other"))) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(200);
    }
    await late.locks.release("write:orders:2", "late");
    expect(await other.held("write:orders:2")).toBe(true);
    await other.release("write:orders:2", "other");
    expect(await other.held("write:orders:2")).toBe(false);
  });
});
