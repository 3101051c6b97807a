import { createClaims } from "@ramp/runtime";
import { MongoClient, ObjectId } from "mongodb";
import { describe, expect, inject, it } from "vitest";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    let inside = 0;
    let overlaps = 0;
    let writes = 0;
    const write = async () => {
      inside++;
      if (inside > 1) overlaps++;
      await sleep(Math.random() * 5);
      inside--;
      writes++;
    };
    // Bursts of writes from both replicas, with gaps longer and shorter than a hold is kept.
    await Promise.all(
      replicas.map(async (claims, r) => {
        for (let burst = 0; burst < 6; burst++) {
          await Promise.all(
            Array.from({ length: 4 }, () => claims.exclusive("doc-1", write, { keep: true })),
          );
          await sleep(burst % 2 === r ? 10 : 150);
        }
      }),
    );
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
