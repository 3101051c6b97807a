import { createTimeList, type ListBudget, type ListMark, type TimeList } from "@ramp/runtime";
import type { Db } from "mongodb";
import type { OrderDoc } from "./order-doc.ts";

/** The business's transaction list (`createTimeList`): orders by `createdAt`, marks beside them. */
export const orderList = (db: Db, budget?: ListBudget): TimeList<OrderDoc> =>
  createTimeList<OrderDoc>({
    docs: db.collection<OrderDoc>("orders"),
    marks: db.collection<ListMark>("order_list_marks"),
    at: (o) => o.createdAt,
    scopeOf: (o) => o.businessId,
    budget,
  });

/**
 * Stores orders as the store would, listed, in one insertMany: for seeding history straight into the
 * database (benchmarks).
 */
export async function insertListedOrders(db: Db, docs: OrderDoc[]): Promise<void> {
  const listed = await orderList(db).keyed(docs);
  await db.collection<OrderDoc>("orders").insertMany(listed, { ordered: false });
}
