import { answeredFromIndex } from "@ramp/devinfra/testing";
import { type Db, type Document, MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type AttemptDoc, createDeliveriesStore, type DeliveriesStore } from "../src/deliveries-store.ts";

/**
 * The delivery log's lists on the real database: a business's keys merged into one newest-first log,
 * by outcome, one order's or one delivery's attempts, paged without repeats or gaps; and every read
 * they send is an equality the database answers from an index, so a page follows the page asked for
 * and not the log's length.
 */
let mongo: MongoClient;
let db: Db;
let store: DeliveriesStore;
const finds: { collection: string; filter: Document }[] = [];
const NOW = Date.now();
const MIN = 60_000;
const DAY = 86_400_000;
const AGES = [0, 0, 5, MIN, MIN + 7, 59 * MIN, 2 * 3_600_000, DAY, 3 * DAY, 40 * DAY, 800 * DAY];
const KEYS = ["key-a", "key-b", "key-c"];
const all: AttemptDoc[] = [];

function attempt(i: number, age: number, apiKeyId: string): AttemptDoc {
  return {
    _id: new ObjectId(),
    deliveryId: `d${i % 7}`,
    apiKeyId,
    type: "RAMP",
    subjectId: `order-${i % 5}`,
    url: "https://example.test/hook",
    attempt: 1 + (i % 3),
    delivered: i % 2 === 0,
    statusCode: i % 2 === 0 ? 200 : 500,
    error: null,
    response: null,
    durationMs: 10,
    body: "{}",
    createdAt: new Date(NOW - age),
  };
}

const newestFirst = (a: AttemptDoc, b: AttemptDoc) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b._id.toHexString().localeCompare(a._id.toHexString());

async function pageAll(q: Omit<Parameters<DeliveriesStore["pageAttempts"]>[0], "cursor">): Promise<string[]> {
  const ids: string[] = [];
  let cursor = "";
  for (let pages = 0; pages < 200; pages++) {
    const page = await store.pageAttempts({ ...q, ...(cursor ? { cursor } : {}) });
    expect(page.data.length).toBeLessThanOrEqual(q.limit);
    ids.push(...page.data.map((d) => d.id));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return ids;
}

const truth = (pred: (a: AttemptDoc) => boolean) =>
  all
    .filter(pred)
    .sort(newestFirst)
    .map((a) => a._id.toHexString());

beforeAll(async () => {
  mongo = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
  mongo.on("commandStarted", (e) => {
    if (e.commandName === "find") finds.push({ collection: e.command.find, filter: e.command.filter });
  });
  db = mongo.db(`t${new ObjectId().toHexString().slice(-8)}_webhook_deliveries`);
  store = createDeliveriesStore(db);
  await store.ensureIndexes();
  let i = 0;
  for (const key of KEYS) for (const age of AGES) all.push(attempt(i++, age + (i % 3), key));
  await store.insertAttempts(all);
  // Another business's history, which none of the lists below may show. It also keeps the log's
  // collections from being tiny: on a few dozen rows PostgreSQL (under FerretDB) rightly prefers reading
  // the table to its index once it has statistics, and the index check below is about a log that grows.
  const others = Array.from({ length: 2_000 }, (_, n) => ({
    ...attempt(n, n * MIN, "key-other"),
    deliveryId: `other-${n}`,
    subjectId: `other-order-${n}`,
  }));
  await store.insertAttempts(others);
});
afterAll(async () => mongo?.close());

describe("the delivery log", () => {
  it("merges a business's keys newest first, by outcome, whatever the page size", async () => {
    const mine = new Set(["key-a", "key-c"]);
    for (const limit of [1, 4, 100]) {
      expect(await pageAll({ apiKeyIds: [...mine], limit })).toEqual(
        truth((a) => mine.has(a.apiKeyId ?? "")),
      );
      expect(await pageAll({ apiKeyIds: [...mine], delivered: false, limit })).toEqual(
        truth((a) => mine.has(a.apiKeyId ?? "") && !a.delivered),
      );
    }
  });

  it("narrows to one order's or one delivery's attempts, still within the business's keys", async () => {
    expect(await pageAll({ apiKeyIds: ["key-b"], subjectId: "order-2", limit: 2 })).toEqual(
      truth((a) => a.apiKeyId === "key-b" && a.subjectId === "order-2"),
    );
    expect(await pageAll({ apiKeyIds: KEYS, deliveryId: "d3", limit: 1 })).toEqual(
      truth((a) => a.deliveryId === "d3"),
    );
    expect(await pageAll({ deliveryId: "d3", limit: 100 })).toEqual(truth((a) => a.deliveryId === "d3"));
  });

  it("a key's recent attempts, for the public API, are its newest", async () => {
    const recent = await store.listAttempts("key-b", undefined, 5);
    expect(recent.map((a) => a.id)).toEqual(truth((a) => a.apiKeyId === "key-b").slice(0, 5));
    const ofOrder = await store.listAttempts("key-b", "order-1", 50);
    expect(ofOrder.map((a) => a.id)).toEqual(
      truth((a) => a.apiKeyId === "key-b" && a.subjectId === "order-1"),
    );
  });

  it("every read a page sends is an equality answered from an index", async () => {
    finds.length = 0;
    await store.pageAttempts({ apiKeyIds: ["key-a", "key-b"], limit: 5 });
    await store.pageAttempts({ apiKeyIds: ["key-a"], delivered: true, limit: 5 });
    await store.pageAttempts({ apiKeyIds: KEYS, subjectId: "order-4", limit: 5 });
    await store.pageAttempts({ deliveryId: "d1", limit: 1 });
    await store.listAttempts("key-c", undefined, 10);
    const sent = finds.splice(0);
    expect(sent.some((q) => q.collection === "attempt_list_marks")).toBe(true);
    for (const q of sent) expect(await answeredFromIndex(db, q.collection, q.filter)).toBe(true);
  });

  it("a cursor that did not come from the log is 400 Invalid cursor", async () => {
    await expect(store.pageAttempts({ apiKeyIds: KEYS, limit: 5, cursor: "garbage!" })).rejects.toMatchObject(
      {
        status: 400,
        detail: "Invalid cursor",
      },
    );
  });
});
