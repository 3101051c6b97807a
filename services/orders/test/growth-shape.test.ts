/**
 * What keeps the orders service's reads proportional to the work asked for as history grows: each query
 * a lookup or a sweep sends is answered from an index, on the database the tests run on. On FerretDB
 * that means the filter is pushed down to its backend and, on PostgreSQL, the plan has no sequential
 * scan (FerretDB's `explain` returns its backend's plan); on MongoDB, no collection scan. The queries
 * are the ones the store really sends, caught by the driver's command monitoring, then explained.
 */
import type { NatsConnection } from "@nats-io/transport-node";
import { Events } from "@ramp/contracts";
import { answeredFromIndex, eventually, startTestNats, type TestNats } from "@ramp/devinfra/testing";
import {
  createClaims,
  createLogger,
  ensureStreams,
  type ListMark,
  newTraceContext,
  OUTBOX_PENDING,
  outboxEntry,
  startOutboxSweeper,
} from "@ramp/runtime";
import { type Db, type Document, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type OrderDoc, toDto } from "../src/orders/order-doc.ts";
import { createOrdersStore, type OrdersStore } from "../src/orders/orders-store.ts";
import { orderFixture } from "./support/order-fixture.ts";

let nats: TestNats;
let nc: NatsConnection;
let mongo: MongoClient;
let db: Db;
let store: OrdersStore;
let js: Awaited<ReturnType<typeof ensureStreams>>["js"];
const finds: { collection: string; filter: Document }[] = [];
const log = createLogger("test", "silent");
const HISTORY = 3_000;

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("orders");
  ({ js } = await ensureStreams(nc));
  mongo = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
  mongo.on("commandStarted", (e) => {
    if (e.commandName === "find" && e.command.find !== "claims")
      finds.push({ collection: e.command.find, filter: e.command.filter });
  });
  db = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_orders_growth`);
  store = createOrdersStore({ db, js, claims: createClaims(db), log });
  await store.init();
  // The list marks of a business with no order here, which no page below may read. They also keep the
  // marks from being tiny: on a few dozen rows PostgreSQL (under FerretDB) rightly prefers reading the
  // table to its index once it has statistics, and the index checks below are about lists that grow.
  await db.collection<ListMark>("order_list_marks").insertMany(
    Array.from({ length: 2_000 }, (_, n) => ({
      _id: `other-business:0:${n}`,
      up: `other-business:1:${Math.floor(n / 60)}`,
      n,
    })),
  );
  // History: finished orders, nothing pending about them.
  for (let i = 0; i < HISTORY; i += 1_000)
    await db
      .collection("orders")
      .insertMany(Array.from({ length: 1_000 }, () => orderFixture({ status: "COMPLETED" })));
}, 120_000);
afterAll(async () => {
  await nc?.close();
  await mongo?.close();
  await nats?.stop();
});

/** Each `find` the store sends while `work` runs, but for those on claims (tested where they are kept). */
async function queriesOf(work: () => Promise<unknown>): Promise<{ collection: string; filter: Document }[]> {
  finds.length = 0;
  await work();
  return finds.splice(0);
}

const fromIndex = ({ collection, filter }: { collection: string; filter: Document }) =>
  answeredFromIndex(db, collection, filter);

describe(`with ${HISTORY} stored orders`, () => {
  it("a lookup by id reads the order from an index", async () => {
    const doc = orderFixture();
    await store.insert(doc);
    const queries = await queriesOf(async () => {
      expect((await store.get(doc._id.toHexString()))?._id).toEqual(doc._id);
    });
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(await fromIndex(q)).toBe(true);
  });

  it("the outbox sweep finds what a crash left from an index, sends it and clears its flag", async () => {
    const col = db.collection<OrderDoc>("orders");
    const left = orderFixture();
    const event = outboxEntry(
      Events.orderStatusChanged,
      { businessId: left.businessId, apiKeyId: null, webhookURL: null, sequence: 1, order: toDto(left) },
      `${left._id.toHexString()}:PROCESSING`,
      newTraceContext(),
    );
    // Saved with its event and the flag a store write sets with it, then never published.
    await col.insertOne({ ...left, outbox: [event], [OUTBOX_PENDING]: true } as OrderDoc);
    const sweeper = startOutboxSweeper(js, col, log, { intervalMs: 3_600_000, graceMs: 0 });
    try {
      await eventually(async () =>
        (await col.indexes()).some((i) => i.key[OUTBOX_PENDING] !== undefined) ? true : undefined,
      );
      const queries = await queriesOf(() => sweeper.sweep());
      expect(queries.length).toBeGreaterThan(0);
      for (const q of queries) expect(await fromIndex(q)).toBe(true);
      const after = await col.findOne({ _id: left._id });
      expect(after?.outbox).toEqual([]);
      expect(after && OUTBOX_PENDING in after).toBe(false);
    } finally {
      await sweeper.stop();
    }
  });

  it("the expiry sweep finds due orders from an index", async () => {
    const due = orderFixture({
      transactionType: "ON_RAMP",
      status: "INIT",
      expiresAt: new Date(Date.now() - 1_000),
    });
    await store.insert(due);
    const queries = await queriesOf(async () => {
      expect(await store.dueForExpiry(new Date(), 200)).toContainEqual(due._id);
    });
    for (const q of queries) expect(await fromIndex(q)).toBe(true);
  });

  it("a transaction list page, filtered or not, reads by equalities answered from an index", async () => {
    const business = "busy";
    const mine = Array.from({ length: 30 }, (_, i) =>
      orderFixture({ createdAt: new Date(Date.now() - i * 7_000), status: "COMPLETED" }, business),
    );
    for (const o of mine) await store.insert(o);
    for (const filter of [{}, { status: "COMPLETED" as const, currency: "NGN" as const }]) {
      let next = null;
      const queries = await queriesOf(async () => {
        const first = await store.page({ businessId: business }, filter, null, 20);
        expect(first.docs).toHaveLength(20);
        next = first.next;
        expect((await store.page({ businessId: business }, filter, next, 20)).docs).toHaveLength(10);
      });
      expect(queries.some((q) => q.collection === "orders")).toBe(true);
      expect(queries.some((q) => q.collection === "order_list_marks")).toBe(true);
      for (const q of queries) expect(await fromIndex(q)).toBe(true);
    }
  });

  it("every business's list (the console's operators) reads by equalities answered from an index", async () => {
    const queries = await queriesOf(async () => {
      const first = await store.page({ businessId: null }, {}, null, 20);
      expect(first.docs).toHaveLength(20);
      const next = await store.page({ businessId: null }, { status: "COMPLETED" }, first.next, 5);
      expect(next.docs).toHaveLength(5);
    });
    expect(queries.some((q) => q.collection === "order_list_marks")).toBe(true);
    for (const q of queries) expect(await fromIndex(q)).toBe(true);
  });
});
