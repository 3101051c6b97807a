import type { TransactionFilter } from "@ramp/contracts";
import { ObjectId } from "mongodb";
import type { ListPosition } from "./list-cursor.ts";
import type { OrderDoc } from "./order-doc.ts";
import {
  type ListScope,
  type OrderScan,
  type OrdersStore,
  SEARCH_FIELDS,
  type SearchMatch,
} from "./orders-store.ts";

/**
 * What a console search term may be: an order id, or a value one of the searched fields holds exactly.
 * Each becomes a query of its own, an equality on one indexed field, rather than one `$or`: FerretDB
 * serves an equality from its index and reads every row for an `$or`.
 */
export function searchMatches(q: string): SearchMatch[] {
  const matches: SearchMatch[] = SEARCH_FIELDS.map((field) => ({ field, value: q }));
  if (/^[0-9a-f]{24}$/i.test(q)) matches.unshift({ field: "_id", value: new ObjectId(q) });
  return matches;
}

/** Whose orders a request reads; with `q`, one scope per field the term could be. */
export const scopesOf = (businessId: string | null, q: string | undefined): ListScope[] =>
  q === undefined ? [{ businessId }] : searchMatches(q).map((match) => ({ businessId, match }));

/** Newest first, as the list is sorted: `createdAt`, then `_id`, both descending. */
export const listOrder = (a: OrderDoc, b: OrderDoc) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b._id.toHexString().localeCompare(a._id.toHexString());

/** Merges pages read per scope into one, in list order, each order once. */
export function mergePages(pages: OrderDoc[][], limit: number): OrderDoc[] {
  const seen = new Map<string, OrderDoc>();
  for (const doc of pages.flat()) seen.set(doc._id.toHexString(), doc);
  return [...seen.values()].sort(listOrder).slice(0, limit);
}

/** Up to `limit` orders after `after`, over one scope or the union of a search's scopes. */
export async function searchPage(
  store: OrdersStore,
  scopes: ListScope[],
  filter: TransactionFilter,
  after: ListPosition | null,
  limit: number,
): Promise<OrderDoc[]> {
  if (scopes.length === 1 && scopes[0]) return store.page(scopes[0], filter, after, limit);
  const pages = await Promise.all(scopes.map((scope) => store.page(scope, filter, after, limit)));
  return mergePages(pages, limit);
}

/** Orders one search may export: a term names a handful of orders, never a business's history. */
export const SEARCH_EXPORT_MAX = 10_000;

/** The export's scan: the store's own cursor, or a search's matches read at once and merged. */
export function searchScan(
  store: OrdersStore,
  scopes: ListScope[],
  filter: TransactionFilter,
  batchSize: number,
): OrderScan {
  if (scopes.length === 1 && scopes[0]) return store.scan(scopes[0], filter, batchSize);
  let rows: Promise<OrderDoc[]> | undefined;
  let taken = 0;
  return {
    async take(n) {
      rows ??= searchPage(store, scopes, filter, null, SEARCH_EXPORT_MAX);
      const all = await rows;
      const out = all.slice(taken, taken + n);
      taken += out.length;
      return out;
    },
    close: async () => undefined,
  };
}
