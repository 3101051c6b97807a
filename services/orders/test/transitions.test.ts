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
let js: Awaited<ReturnType<typeof ensureStreams>>["js"];
const log = createLogger("test", "silent");

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("orders");
  ({ js } = await ensureStreams(nc));
  mongo = await MongoClient.connect(inject("mongoUrl"));
  db = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_orders_transitions`);
  store = createOrdersStore({ db, js, claims: createClaims(db), log });
});
afterAll(async () => {
  await nc?.close();
  await mongo?.close();
  await nats?.stop();
});

/** A deposit moving an order out of INIT; each `n` is another deposit. */
const deposit = (on: OrdersStore, id: ObjectId, n = "") =>
  on.transition({ id, from: "INIT", to: "PROCESSING", cause: `deposit${n}`, trace: newTraceContext() });

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
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => deposit(store, doc._id, `${i}`)));
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

  it("two replicas racing causes for one exit: exactly one applies, on both sides", async () => {
    // Each replica has its own claims and its own writes, as separate processes do.
    const replicas = [store, createOrdersStore({ db, js, claims: createClaims(db), log })];
    for (let round = 0; round < 3; round++) {
      const doc = { ...orderFixture(), status: "INIT" as const };
      await store.insert(doc);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => deposit(replicas[i % 2]!, doc._id, `${i}`)),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect((await store.get(doc._id.toHexString()))?.sequence).toBe(1);
    }
  });

  it("an unpaid order's expiry and a deposit: whichever comes first wins, never both", async () => {
    const expiredFirst = { ...orderFixture(), status: "INIT" as const };
    await store.insert(expiredFirst);
    expect(await store.claimExit(expiredFirst._id, "INIT", "DELETED", "expiry")).toBe(true);
    expect(await deposit(store, expiredFirst._id)).toBeNull();
    expect(await store.deleteUnpaid(expiredFirst._id)).toBe(true);
    expect(await store.get(expiredFirst._id.toHexString())).toBeNull();

    const paidFirst = { ...orderFixture(), status: "INIT" as const };
    await store.insert(paidFirst);
    expect((await deposit(store, paidFirst._id))?.status).toBe("PROCESSING");
    await store.claimExit(paidFirst._id, "INIT", "DELETED", "expiry");
    expect(await store.deleteUnpaid(paidFirst._id)).toBe(false);
    expect((await store.get(paidFirst._id.toHexString()))?.status).toBe("PROCESSING");
    // The deposit redelivered still finds its own change.
    expect((await deposit(store, paidFirst._id))?.status).toBe("PROCESSING");
  });
});
