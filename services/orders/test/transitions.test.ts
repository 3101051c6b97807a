import type { NatsConnection } from "@nats-io/transport-node";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { createClaims, createLogger, ensureStreams, newTraceContext } from "@ramp/runtime";
import { type Db, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOrdersStore, type OrdersStore } from "../src/orders/orders-store.ts";
import { orderFixture } from "./support/order-fixture.ts";

let nats: TestNats;
let nc: NatsConnection;
let mongo: MongoClient;
let db: Db;
let store: OrdersStore;

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("orders");
  const { js } = await ensureStreams(nc);
  mongo = await MongoClient.connect(inject("mongoUrl"));
  db = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_orders_transitions`);
  store = createOrdersStore({ db, js, claims: createClaims(db), log: createLogger("test", "silent") });
});
afterAll(async () => {
  await nc?.close();
  await mongo?.close();
  await nats?.stop();
});

describe("order transitions under concurrency", () => {
  it("racing COMPLETED and ERROR: exactly one wins, and the order ends in the winner's state", async () => {
    for (let round = 0; round < 5; round++) {
      const doc = orderFixture();
      await store.insert(doc);
      const attempts = Array.from({ length: 12 }, (_, i) => {
        const to = i % 2 ? "COMPLETED" : "ERROR";
        return store
          .transition({ id: doc._id, from: "PROCESSING", to, cause: `result-${i}`, trace: newTraceContext() })
          .then((r) => (r ? `${to}:${i}` : null));
      });
      const winners = (await Promise.all(attempts)).filter((w) => w !== null);
      expect(winners).toHaveLength(1);
      const final = await store.get(doc._id.toHexString());
      expect(`${final?.status}`).toBe(winners[0]?.split(":")[0]);
      expect(final?.sequence).toBe(1);
    }
  });

  it("many causes racing for one exit: only one applies, the others learn they lost", async () => {
    const doc = { ...orderFixture(), status: "INIT" as const };
    await store.insert(doc);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.transition({
          id: doc._id,
          from: "INIT",
          to: "PROCESSING",
          cause: `deposit-${i}`,
          trace: newTraceContext(),
        }),
      ),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  it("a cause that claimed the exit and crashed finishes it on redelivery; another cause cannot", async () => {
    const doc = orderFixture();
    await store.insert(doc);
    expect(await store.claimExit(doc._id, "PROCESSING", "COMPLETED", "transfer-result")).toBe(true);
    const other = { id: doc._id, from: "PROCESSING", trace: newTraceContext() } as const;
    expect(await store.transition({ ...other, to: "ERROR", cause: "transfer-result" })).toBeNull();
    expect(await store.transition({ ...other, to: "COMPLETED", cause: "another" })).toBeNull();
    const done = await store.transition({ ...other, to: "COMPLETED", cause: "transfer-result" });
    expect(done?.status).toBe("COMPLETED");
    // Redelivered once more after it was applied: the same order back, nothing changed twice.
    const again = await store.transition({ ...other, to: "COMPLETED", cause: "transfer-result" });
    expect(again?.status).toBe("COMPLETED");
    expect(again?.sequence).toBe(1);
  });
});
