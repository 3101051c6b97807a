import { insertListMarks, type ListMark, type Logger, listKeyOf, listMarksOf } from "@ramp/runtime";
import type { Collection, Db } from "mongodb";
import type { OrderDoc } from "./order-doc.ts";

/** The marks a batch of orders needs, each once. */
function marksOf(orders: Pick<OrderDoc, "businessId" | "createdAt">[]): ListMark[] {
  const due = new Map<string, ListMark>();
  for (const o of orders) for (const m of listMarksOf(o.businessId, o.createdAt)) due.set(m._id, m);
  return [...due.values()];
}

/** The transaction list's bucket marks (`createTimeList`), in the orders database. */
export const orderListMarks = (db: Db) => db.collection<ListMark>("order_list_marks");

/**
 * Stores orders as the store would, listed, in one insertMany: for seeding history straight into the
 * database (benchmarks). Orders the store inserts get the same through `createTimeList.keyed`.
 */
export async function insertListedOrders(db: Db, docs: OrderDoc[]): Promise<void> {
  await insertListMarks(orderListMarks(db), marksOf(docs));
  await db.collection<OrderDoc>("orders").insertMany(
    docs.map((o) => ({ ...o, listKey: listKeyOf(o.businessId, o.createdAt) })),
    { ordered: false },
  );
}

/** Stored in the marks collection once every order has its list key; no walk reads it (`up` is ""). */
const DONE: ListMark = { _id: "backfill:listKey", up: "", n: 0 };
const BATCH = 500;

/** What the list needs of an order stored before orders carried their list key. */
type Unkeyed = Pick<OrderDoc, "_id" | "businessId" | "createdAt" | "status" | "listKey">;

/**
 * Gives orders stored before lists were keyed their `listKey` and marks, once per database: the one
 * read of the whole history, at the first start of this version (later starts find DONE and read
 * nothing). Each key is set through `setKey`, the store's guarded write, since a running older process
 * may be changing the same order. Until DONE is stored, lists read the old way (`listKeysDone`).
 */
export async function backfillListKeys(deps: {
  orders: Collection<OrderDoc>;
  marks: Collection<ListMark>;
  setKey: (order: Unkeyed, listKey: string) => Promise<unknown>;
  log: Logger;
  /** Asked between batches: true once the service is stopping (the next start goes on). */
  stopping: () => boolean;
}): Promise<void> {
  const { orders, marks, log } = deps;
  if (await marks.findOne({ _id: DONE._id })) return;
  const cursor = orders
    .find({}, { projection: { _id: 1, businessId: 1, createdAt: 1, status: 1, listKey: 1 } })
    .batchSize(BATCH);
  let keyed = 0;
  let batch: Unkeyed[] = [];
  const flush = async () => {
    await insertListMarks(marks, marksOf(batch));
    await Promise.all(batch.map((o) => deps.setKey(o, listKeyOf(o.businessId, o.createdAt))));
    keyed += batch.length;
    batch = [];
  };
  try {
    for await (const o of cursor as AsyncIterable<Unkeyed>) {
      if (o.listKey) continue;
      batch.push(o);
      if (batch.length >= BATCH) await flush();
      if (deps.stopping()) return;
    }
  } finally {
    await cursor.close();
  }
  await flush();
  await insertListMarks(marks, [DONE]);
  if (keyed > 0) log.info({ keyed }, "orders keyed for the transaction list");
}

/**
 * Whether every order has its list key (see `backfillListKeys`): known once DONE is stored, and so at
 * once in a database without orders (an unfiltered `findOne` reads one row on FerretDB too).
 */
export async function listKeysDone(orders: Collection<OrderDoc>, marks: Collection<ListMark>) {
  if (await marks.findOne({ _id: DONE._id })) return true;
  if (await orders.findOne({}, { projection: { _id: 1 } })) return false;
  await insertListMarks(marks, [DONE]);
  return true;
}
