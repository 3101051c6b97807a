import type { Rpc, TransactionPage } from "@ramp/contracts";
import type { z } from "zod";
import { decodeCursor, encodeCursor } from "./list-cursor.ts";
import { toDto } from "./order-doc.ts";
import type { OrdersStore } from "./orders-store.ts";
import { scopesOf, searchPage } from "./search-transactions.ts";

/**
 * One page of the business's orders after the cursor. One more than asked is read so the last page is
 * known as such (its `nextCursor` is "") without a further round trip.
 */
export async function listTransactions(
  store: OrdersStore,
  req: z.infer<typeof Rpc.transactionList.request>,
): Promise<TransactionPage> {
  const after = req.cursor ? decodeCursor(req.cursor) : null;
  const scopes = scopesOf(req.businessId, req.q);
  const docs = await searchPage(store, scopes, req.filter, after, req.limit + 1);
  const page = docs.slice(0, req.limit);
  const last = page.at(-1);
  return {
    data: page.map(toDto),
    nextCursor:
      docs.length > req.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last._id }) : "",
  };
}
