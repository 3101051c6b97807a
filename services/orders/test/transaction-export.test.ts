import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc, type TransactionChunk } from "@ramp/contracts";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { callRpc, createClaims, createLogger, ensureStreams, type Stoppable } from "@ramp/runtime";
import { type Db, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrdersStore, type OrdersStore } from "../src/orders/orders-store.ts";
import { serveTransactionExports } from "../src/orders/transaction-export.ts";
import { orderFixture } from "./support/order-fixture.ts";

/**
 * The export's orders side on a real NATS (each side connected with its own permissions) and database:
 * one cursor walked a chunk at a time on the subject each chunk names, and closed when the gateway
 * stops asking, says stop, or too many are open.
 */
const CHUNK = 4;
const ORDERS = 10;
const log = createLogger("test", "silent");
let nats: TestNats;
let ordersNc: NatsConnection;
let gatewayNc: NatsConnection;
let mongo: MongoClient;
let db: Db;
let store: OrdersStore;
const stoppers: Stoppable[] = [];
const ids: string[] = [];

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  ordersNc = await nats.connectAs("orders");
  gatewayNc = await nats.connectAs("gateway");
  const { js } = await ensureStreams(ordersNc);
  mongo = await MongoClient.connect(inject("mongoUrl"));
  db = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_orders_export`);
  store = createOrdersStore({ db, js, claims: createClaims(db), log });
  await store.init();
  const base = Date.now() - 60_000;
  for (let i = 0; i < ORDERS; i++) {
    const doc = orderFixture({
      status: "COMPLETED",
      amount: String(i + 1),
      // Two orders share each millisecond, so the walk must order by id within one.
      createdAt: new Date(base + Math.floor(i / 2)),
    });
    await store.insert(doc);
    ids.push(doc._id.toHexString());
  }
  await store.insert(orderFixture({ status: "COMPLETED", transactionType: "ON_RAMP" }, "someone-else"));
});
afterAll(async () => {
  for (const s of stoppers) await s.stop();
  await gatewayNc?.close();
  await ordersNc?.close();
  await mongo?.close();
  await nats?.stop();
});

async function serve(options: { idleMs: number; maxOpen: number }): Promise<Stoppable> {
  const s = serveTransactionExports(
    { nc: ordersNc, store, log, queue: "orders" },
    { ...options, chunk: CHUNK },
  );
  stoppers.push(s);
  // The subscription is on the server before the other connection asks.
  await ordersNc.flush();
  return s;
}

const open = (filter = {}) =>
  callRpc(gatewayNc, Rpc.transactionExport, { businessId: "b", filter }, undefined, 30_000);
const next = (subject: string, stop?: boolean) =>
  callRpc(gatewayNc, Rpc.transactionExportNext, stop ? { stop } : {}, undefined, 10_000, subject);

describe("the transaction export's cursor", () => {
  it("hands every matching order over once, newest first, a chunk at a time, and then closes", async () => {
    const server = await serve({ idleMs: 60_000, maxOpen: 4 });
    const chunks: TransactionChunk[] = [await open()];
    while (chunks.at(-1)?.next) chunks.push(await next(chunks.at(-1)!.next));
    expect(chunks.map((c) => c.data.length)).toEqual([4, 4, 2]);
    // The walk is list order: createdAt, then id, both descending.
    expect(chunks.flatMap((c) => c.data.map((t) => t.id))).toEqual(
      ids.slice().sort((a, b) => (a < b ? 1 : -1)),
    );
    // Each chunk names the same subject of this export alone, not the queue's.
    expect(chunks[0]?.next).toMatch(/^ramp\.orders\.transaction\.export\.next\.[0-9a-f]{32}$/);
    expect(chunks[1]?.next).toBe(chunks[0]?.next);
    // Done: nobody answers that subject any more.
    await expect(next(chunks[0]!.next)).rejects.toMatchObject({ code: "UNAVAILABLE" });
    const one = await open({ status: "PROCESSING" });
    expect(one).toEqual({ data: [], next: "" });
    await server.stop();
  });

  it("closes an export on stop, and one whose next chunk nobody asks for in time", async () => {
    const server = await serve({ idleMs: 400, maxOpen: 4 });
    const stopped = await open();
    expect(await next(stopped.next, true)).toEqual({ data: [], next: "" });
    await expect(next(stopped.next)).rejects.toMatchObject({ code: "UNAVAILABLE" });

    const abandoned = await open();
    const second = await next(abandoned.next);
    expect(second.data).toHaveLength(CHUNK);
    await new Promise((r) => setTimeout(r, 1_000));
    await expect(next(abandoned.next)).rejects.toMatchObject({ code: "UNAVAILABLE" });
    await server.stop();
  });

  it("refuses to open more than its limit with 503, and opens again once one closes", async () => {
    const server = await serve({ idleMs: 60_000, maxOpen: 2 });
    const a = await open();
    await open();
    await expect(open()).rejects.toMatchObject({ code: "UNAVAILABLE", message: /Too many exports/ });
    await next(a.next, true);
    const c = await open();
    expect(c.data).toHaveLength(CHUNK);
    await server.stop();
    // Stopping the service closes what it still held.
    await expect(next(c.next)).rejects.toMatchObject({ code: "UNAVAILABLE" });
  });
});
