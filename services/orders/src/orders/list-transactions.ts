import type { Rpc, TransactionPage } from "@ramp/contracts";
import { decodeListCursor, encodeListCursor } from "@ramp/runtime";
import type { z } from "zod";
import { toDto } from "./order-doc.ts";
import type { OrdersStore } from "./orders-store.ts";
import { scopesOf, searchPage } from "./search-transactions.ts";

/**
 * One page of the business's orders after the cursor (every business's for the console's operators,
 * or what a search term names). The store looks one order past the page, so the last page is known
 * as such (its `nextCursor` is "") without a further round trip.
 */
export async function listTransactions(
  store: OrdersStore,
  req: z.infer<typeof Rpc.transactionList.request>,
): Promise<TransactionPage> {
  const after = req.cursor ? decodeListCursor(req.cursor) : null;
  const scopes = scopesOf(req.businessId, req.q);
  const { docs, next } = await searchPage(store, scopes, req.filter, after, req.limit);
  return { data: docs.map(toDto), nextCursor: next ? encodeListCursor(next) : "" };
}
