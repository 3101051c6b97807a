import { type Collection, type Db, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createSweepStore,
  type SweepDoc,
  type SweepStore,
  type SweepTarget,
} from "../src/consolidation/sweep-store.ts";

/**
 * Making an address due on the real database, when a round of its sweep is under way or ends at the
 * same moment: whatever arrived since the round's balance reading always gets a round of its own.
 */
let mongo: MongoClient;
let db: Db;

beforeAll(async () => {
  mongo = await MongoClient.connect(inject("mongoUrl"));
  db = mongo.db(`sweeps_${new ObjectId().toHexString()}`);
});
afterAll(async () => {
  await db?.dropDatabase();
  await mongo?.close();
});

let n = 0;
const target = (): SweepTarget => ({
  chain: "BASE",
  address: `0x${(++n).toString(16).padStart(40, "0")}`,
  index: n,
  mint: "0xmint",
});
const idOf = (t: SweepTarget) => `${t.chain}:${t.address}:${t.mint}`;
/** The target's sweep as a worker picks it up. */
const pendingOf = async (store: SweepStore, t: SweepTarget) =>
  (await store.pending(100)).find((d) => d._id === idOf(t));

/**
 * The database as the store sees it, except that right after the insert of `_id` fails on its key
 * (the sweep is under way), `meanwhile` runs: another process's step landing between the two writes.
 */
function interleaved(id: string, meanwhile: (sweeps: Collection<SweepDoc>) => Promise<unknown>): Db {
  let done = false;
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== "collection") return Reflect.get(target, prop, receiver);
      return (name: string) => {
        const col = target.collection<SweepDoc>(name);
        return new Proxy(col, {
          get(c, method, r) {
            if (method !== "insertOne") return Reflect.get(c, method, r);
            return async (doc: SweepDoc) => {
              try {
                return await c.insertOne(doc);
              } finally {
                if (!done && doc._id === id) {
                  done = true;
                  await meanwhile(c);
                }
              }
            };
          },
        });
      };
    },
  });
}

describe("an address made due while its sweep is under way", () => {
  it("gets one more round when the round under way has read its balance already", async () => {
    const store = createSweepStore(db);
    const t = target();
    await store.markDue(t, t.address);
    const first = await pendingOf(store, t);
    await store.advance(first!, { status: "tokens", amount: "25", gas: "0" });
    await store.markDue(t, t.address);
    const under = await pendingOf(store, t);
    await store.finish(under!);
    const after = await db.collection<SweepDoc>("sweeps").findOne({ _id: idOf(t) });
    expect(after).toMatchObject({ status: "due", round: 0, amount: null });
    expect(after?.cycle).not.toBe(first!.cycle);
  });

  it("is swept again when its round finished between the failed insert and the update", async () => {
    const t = target();
    await createSweepStore(db).markDue(t, t.address);
    const finishing = createSweepStore(db);
    const doc = await pendingOf(finishing, t);
    const store = createSweepStore(interleaved(idOf(t), () => finishing.finish(doc!)));
    await store.markDue(t, t.address);
    const after = await db.collection<SweepDoc>("sweeps").findOne({ _id: idOf(t) });
    expect(after).toMatchObject({ status: "due", round: 0 });
    expect(after?.cycle).not.toBe(doc!.cycle);
  });

  it("leaves a held sweep held: the operator's release reads a fresh balance", async () => {
    const t = target();
    const store = createSweepStore(db);
    await store.markDue(t, t.address);
    const doc = await pendingOf(store, t);
    await store.advance(doc!, { status: "held", reason: "out of gas" });
    await store.markDue(t, t.address);
    const after = await db.collection<SweepDoc>("sweeps").findOne({ _id: idOf(t) });
    expect(after).toMatchObject({ status: "held", cycle: doc!.cycle });
    expect(after?.again).toBeUndefined();
  });
});
