import type { NatsConnection } from "@nats-io/transport-node";
import type { TransactionFilter } from "@ramp/contracts";
import { eventually, startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { createClaims, createLogger, ensureStreams, type ListPosition } from "@ramp/runtime";
import { type Db, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { OrderDoc } from "../src/orders/order-doc.ts";
import { createOrdersStore, type OrdersStore } from "../src/orders/orders-store.ts";
import { orderFixture } from "./support/order-fixture.ts";

/**
 * The store's transaction list on the real database: newest first across every bucket its walk passes
 * (same millisecond, same minute, hours, days, years apart), filtered, paged without repeats or gaps,
 * a page that would read too much answering early with a cursor, and orders stored before lists were
 * keyed listed too.
 */
const log = createLogger("test", "silent");
let nats: TestNats;
let nc: NatsConnection;
let mongo: MongoClient;
let js: Awaited<ReturnType<typeof ensureStreams>>["js"];
const BIZ = "lister";
const NOW = Date.now();
const MIN = 60_000;
const DAY = 86_400_000;
/** Offsets back from now: bunched, straddling minute/hour/day edges, and years apart. */
const AGES = [
  0,
  0,
  0,
  1,
  2,
  59_999,
  MIN,
  MIN + 1,
  3 * MIN,
  59 * MIN,
  61 * MIN,
  3_600_000,
  DAY - 1,
  DAY,
  DAY + 5,
  31 * DAY,
  33 * DAY,
  400 * DAY,
  1030 * DAY,
  1100 * DAY,
  3 * 365 * DAY,
];

const connect = async (name: string): Promise<Db> =>
  mongo.db(`t${new ObjectId().toHexString().slice(-8)}_${name}`);
const store = (db: Db, listBudget?: { leaves: number; rows: number }) =>
  createOrdersStore({ db, js, claims: createClaims(db), log, listBudget });

function history(): OrderDoc[] {
  return AGES.flatMap((age, i) => {
    const createdAt = new Date(NOW - age);
    return [
      orderFixture(
        {
          createdAt,
          status: i % 3 === 0 ? "COMPLETED" : "PROCESSING",
          currency: i % 2 === 0 ? "NGN" : "GHS",
          transactionType: i % 4 === 0 ? "ON_RAMP" : "OFF_RAMP",
        },
        BIZ,
      ),
      ...(i % 5 === 0 ? [orderFixture({ createdAt }, "someone-else")] : []),
    ];
  });
}

const newestFirst = (a: OrderDoc, b: OrderDoc) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b._id.toHexString().localeCompare(a._id.toHexString());

const expected = (all: OrderDoc[], f: TransactionFilter) =>
  all
    .filter(
      (o) =>
        o.businessId === BIZ &&
        (!f.status || o.status === f.status) &&
        (!f.currency || o.currency === f.currency) &&
        (!f.type || o.transactionType === f.type) &&
        (!f.from || o.createdAt >= new Date(f.from)) &&
        (!f.to || o.createdAt < new Date(f.to)),
    )
    .sort(newestFirst)
    .map((o) => o._id.toHexString());

/** Every page the list gives, following its cursor, and how many pages that took. */
async function walk(
  s: OrdersStore,
  filter: TransactionFilter,
  limit: number,
  businessId: string | null = BIZ,
) {
  const ids: string[] = [];
  let after: ListPosition | null = null;
  let pages = 0;
  do {
    const page = await s.page({ businessId }, filter, after, limit);
    expect(page.docs.length).toBeLessThanOrEqual(limit);
    ids.push(...page.docs.map((o) => o._id.toHexString()));
    after = page.next;
    pages++;
  } while (after && pages < 500);
  return { ids, pages };
}

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("orders");
  ({ js } = await ensureStreams(nc));
  mongo = await MongoClient.connect(inject("mongoUrl"));
});
afterAll(async () => {
  await nc?.close();
  await mongo?.close();
  await nats?.stop();
});

describe("the transaction list", () => {
  let s: OrdersStore;
  const all = history();
  beforeAll(async () => {
    s = store(await connect("orders_list"));
    await s.init();
    for (const o of all) await s.insert(o);
  });

  it("pages through the business's orders newest first, whatever the page size, never repeating one", async () => {
    const truth = expected(all, {});
    expect(truth.length).toBe(AGES.length);
    for (const limit of [1, 2, 5, 100]) {
      const { ids, pages } = await walk(s, {}, limit);
      expect(ids, `limit ${limit}`).toEqual(truth);
      expect(pages, `limit ${limit}`).toBe(Math.max(1, Math.ceil(truth.length / limit)));
    }
  });

  it("lists every business's orders together for operators, newest first", async () => {
    const everyone = [...all].sort(newestFirst).map((o) => o._id.toHexString());
    expect(everyone.length).toBeGreaterThan(AGES.length);
    for (const limit of [1, 6, 100]) expect((await walk(s, {}, limit, null)).ids).toEqual(everyone);
    const ghs = all.filter((o) => o.currency === "GHS").sort(newestFirst);
    expect((await walk(s, { currency: "GHS" }, 4, null)).ids).toEqual(ghs.map((o) => o._id.toHexString()));
  });

  it("filters by status, currency, type and from (inclusive) to (exclusive)", async () => {
    const edge = new Date(NOW - DAY).toISOString();
    const filters: TransactionFilter[] = [
      { status: "COMPLETED" },
      { currency: "GHS", type: "OFF_RAMP" },
      { from: edge },
      { to: edge },
      { from: new Date(NOW - 1030 * DAY).toISOString(), to: edge, status: "PROCESSING" },
      { status: "ERROR" },
    ];
    for (const filter of filters)
      for (const limit of [1, 3, 100])
        expect((await walk(s, filter, limit)).ids, JSON.stringify({ filter, limit })).toEqual(
          expected(all, filter),
        );
  });

  it("an order created while a client pages sorts before its cursor: later pages neither repeat nor skip", async () => {
    const first = await s.page({ businessId: BIZ }, {}, null, 4);
    const newer = orderFixture({ createdAt: new Date() }, BIZ);
    await s.insert(newer);
    all.push(newer);
    const rest = await walk(s, {}, 3);
    expect(rest.ids[0]).toBe(newer._id.toHexString());
    let after = first.next;
    const seen = first.docs.map((o) => o._id.toHexString());
    while (after) {
      const page = await s.page({ businessId: BIZ }, {}, after, 4);
      seen.push(...page.docs.map((o) => o._id.toHexString()));
      after = page.next;
    }
    expect(seen).toEqual(expected(all, {}).filter((id) => id !== newer._id.toHexString()));
  });
});

describe("a page that would read too much", () => {
  it("answers early with the orders it found and a cursor, and the walk from it finds the rest", async () => {
    const s = store(await connect("orders_budget"), { leaves: 2, rows: 1_000 });
    await s.init();
    const all = history();
    for (const o of all) await s.insert(o);
    // Only the oldest order is an ERROR: every leaf newer than it is passed over.
    const oldest = orderFixture({ createdAt: new Date(NOW - 4 * 365 * DAY), status: "ERROR" }, BIZ);
    await s.insert(oldest);
    const first = await s.page({ businessId: BIZ }, { status: "ERROR" }, null, 20);
    expect(first.docs).toEqual([]);
    expect(first.next).not.toBeNull();
    const { ids, pages } = await walk(s, { status: "ERROR" }, 20);
    expect(ids).toEqual([oldest._id.toHexString()]);
    expect(pages).toBeGreaterThan(5);
    expect((await walk(s, {}, 7)).ids).toEqual(expected([...all, oldest], {}));
  });
});

describe("orders stored before lists were keyed", () => {
  it("are listed the old way at once, and by their keys once the sweeper has keyed them", async () => {
    const db = await connect("orders_backfill");
    const all = history();
    // As an earlier version stored them: no list key, no marks.
    await db.collection<OrderDoc>("orders").insertMany(all);
    const s = store(db);
    await s.init();
    const truth = expected(all, {});
    expect((await walk(s, {}, 4)).ids).toEqual(truth);
    const sweeper = s.startSweeper();
    try {
      await eventually(async () =>
        (await db.collection("order_list_marks").findOne({ _id: "backfill:allKey" as never }))
          ? true
          : undefined,
      );
      const keyed = await db.collection<OrderDoc>("orders").countDocuments({ listKey: { $exists: true } });
      expect(keyed).toBe(all.length);
      expect(await db.collection<OrderDoc>("orders").countDocuments({ allKey: { $exists: true } })).toBe(
        all.length,
      );
      // A process started now finds them keyed, and lists them by their keys alone.
      const next = store(db);
      await next.init();
      expect((await walk(next, {}, 4)).ids).toEqual(truth);
      expect((await walk(next, { currency: "NGN" }, 3)).ids).toEqual(expected(all, { currency: "NGN" }));
      const everyone = [...all].sort(newestFirst).map((o) => o._id.toHexString());
      expect((await walk(next, {}, 5, null)).ids).toEqual(everyone);
      await db.collection("orders").updateMany({}, { $unset: { listKey: "", allKey: "" } });
      expect((await walk(next, {}, 4)).ids).toEqual([]);
      expect((await walk(next, {}, 4, null)).ids).toEqual([]);
    } finally {
      await sweeper.stop();
    }
  });
});
