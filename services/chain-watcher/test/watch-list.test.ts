import { answeredFromIndex } from "@ramp/devinfra/testing";
import { type Db, type Document, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type AllocationDoc,
  type AllocationStore,
  createAllocationStore,
  type WatchDoc,
} from "../src/allocation/allocation-store.ts";

/**
 * The poll loop's watch list on the real database: read whole once per process, then only what changed
 * since, by equalities the database answers from an index, so a poll's reads follow the addresses
 * added and not every address ever handed out; another replica's additions are seen too.
 */
let mongo: MongoClient;
let db: Db;
const finds: { collection: string; filter: Document }[] = [];

const allocation = (i: number, mints = ["0xmint"]): AllocationDoc => ({
  _id: `offramp:order-${i}`,
  family: "evm",
  index: i,
  chain: "BASE",
  purpose: "offramp",
  ref: `order-${i}`,
  mints,
  address: `0x${i.toString(16).padStart(40, "0")}`,
  createdAt: new Date(),
});
const keyOf = (a: AllocationDoc) => a.address;
const watch = (store: AllocationStore, a: AllocationDoc) => store.watch(a, keyOf(a));

/** Write commands sent to the watch list: what each new entry costs the database. */
const watchWrites: string[] = [];

beforeAll(async () => {
  mongo = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
  mongo.on("commandStarted", (e) => {
    if (e.commandName === "find") finds.push({ collection: e.command.find, filter: e.command.filter });
    if (
      (e.commandName === "insert" || e.commandName === "update") &&
      e.command[e.commandName] === "watch_list"
    )
      watchWrites.push(e.commandName);
  });
  db = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_chain_watch`);
  // Addresses watched on another chain, changed long ago, which no poll below may read. They also keep
  // the list from being tiny: on a few dozen rows PostgreSQL (under FerretDB) rightly prefers reading
  // the table to its index once it has statistics, and the index check below is about a list that grows.
  await db.collection<WatchDoc>("watch_list").insertMany(
    Array.from({ length: 2_000 }, (_, i) => ({
      _id: `TON:0:other-${i}`,
      chain: "TON" as const,
      key: `0:other-${i}`,
      address: `0:other-${i}`,
      mints: [],
      purpose: "offramp" as const,
      ref: `other-order-${i}`,
      allocationId: `offramp:other-order-${i}`,
      changed: `TON:${1_000_000 + i}`,
    })),
  );
});
afterAll(async () => mongo?.close());

describe("the watch list", () => {
  it("after one whole read, polls read only what changed, and see every replica's additions", async () => {
    const mine = createAllocationStore(db);
    const other = createAllocationStore(db);
    await mine.ensureIndexes();
    for (let i = 0; i < 30; i++) await watch(mine, allocation(i));
    // As if handed out long ago.
    await db.collection("watch_list").updateMany({}, { $set: { changed: "BASE:1" } });
    expect((await mine.watchedOn("BASE")).length).toBe(30);
    expect(await mine.watchedOn("ETHEREUM")).toEqual([]);

    await watch(other, allocation(30));
    await watch(other, allocation(3, ["0xother"]));
    finds.length = 0;
    const now = await mine.watchedOn("BASE");
    const polled = finds.splice(0);
    expect(now.map((w) => w.ref).sort()).toEqual(Array.from({ length: 31 }, (_, i) => `order-${i}`).sort());
    expect(now.find((w) => w.ref === "order-3")?.mints.sort()).toEqual(["0xmint", "0xother"]);
    expect(polled.length).toBeGreaterThan(0);
    for (const q of polled) {
      expect(Object.keys(q.filter)).toEqual(["changed"]);
      expect(await answeredFromIndex(db, q.collection, q.filter)).toBe(true);
    }
    // What a poll reads is what changed, not the 31 addresses.
    const read = await Promise.all(polled.map((q) => db.collection(q.collection).countDocuments(q.filter)));
    expect(read.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it("a new allocation's entry is inserted with the others ready at once, and a repeat still adds its mints", async () => {
    const fresh = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_chain_watch_new`);
    const store = createAllocationStore(fresh);
    await store.ensureIndexes();
    const made = Array.from({ length: 8 }, (_, i) => allocation(100 + i));
    watchWrites.length = 0;
    await Promise.all(made.map((a) => store.watchNew(a, keyOf(a))));
    // Inserts only, grouped: the first goes at once, the others leave together behind it.
    expect(watchWrites.every((c) => c === "insert")).toBe(true);
    expect(watchWrites.length).toBeLessThanOrEqual(2);
    // Stored as a first `watch` stores it, so the poll loop finds each one.
    const polled = await createAllocationStore(fresh).watchedOn("BASE");
    expect(
      polled.map((w) => ({ ...w, changed: undefined })).sort((x, y) => x.ref.localeCompare(y.ref)),
    ).toEqual(
      made.map((a) => ({
        _id: `BASE:${a.address}`,
        chain: "BASE",
        key: a.address,
        address: a.address,
        mints: ["0xmint"],
        purpose: "offramp",
        ref: a.ref,
        allocationId: a._id,
        changed: undefined,
      })),
    );
    for (const w of polled) expect(w.changed).toMatch(/^BASE:\d+$/);

    // An entry there already (a repeat after a crash) is updated instead: nothing lost, the mint added.
    const again = allocation(100, ["0xmint", "0xother"]);
    watchWrites.length = 0;
    await store.watchNew(again, keyOf(again));
    expect(watchWrites.at(-1)).toBe("update");
    const entry = await fresh.collection<WatchDoc>("watch_list").findOne({ _id: `BASE:${again.address}` });
    expect(entry?.mints.sort()).toEqual(["0xmint", "0xother"]);
  });
});
