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

beforeAll(async () => {
  mongo = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
  mongo.on("commandStarted", (e) => {
    if (e.commandName === "find") finds.push({ collection: e.command.find, filter: e.command.filter });
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
});
