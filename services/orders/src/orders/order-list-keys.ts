import { createTimeList, type ListBudget, type ListMark, type TimeList } from "@ramp/runtime";
import type { Db } from "mongodb";
import type { OrderDoc } from "./order-doc.ts";

/** Every business's orders together, for the console's operators: the list `allKey` keys. */
export const ALL_BUSINESSES = "*";

/**
 * The orders' time lists (`createTimeList`): each business's (`listKey`) and every business's
 * (`allKey`), by `createdAt`, their marks in one collection beside the orders.
 */
export function orderLists(db: Db, budget?: ListBudget) {
  const lists = (field: string, scopeOf: (o: OrderDoc) => string): TimeList<OrderDoc> =>
    createTimeList<OrderDoc>({
      docs: db.collection<OrderDoc>("orders"),
      marks: db.collection<ListMark>("order_list_marks"),
      at: (o) => o.createdAt,
      scopeOf,
      field,
      budget,
    });
  const business = lists("listKey", (o) => o.businessId);
  const all = lists("allKey", () => ALL_BUSINESSES);
  return {
    business,
    all,
    /** An order with both keys, its marks stored: what to insert. */
    keyed: async (docs: OrderDoc[]) => all.keyed(await business.keyed(docs)),
  };
}

/**
 * Stores orders as the store would, listed, in one insertMany: for seeding history straight into the
 * database (benchmarks).
 */
export async function insertListedOrders(db: Db, docs: OrderDoc[]): Promise<void> {
  const listed = await orderLists(db).keyed(docs);
  await db.collection<OrderDoc>("orders").insertMany(listed, { ordered: false });
}
