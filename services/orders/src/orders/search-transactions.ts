import type { TransactionFilter } from "@ramp/contracts";
import type { ListPage, ListPosition } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import type { OrderDoc } from "./order-doc.ts";
import { type ListScope, type OrdersStore, SEARCH_FIELDS, type SearchMatch } from "./orders-store.ts";

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

/**
 * Merges pages read per scope, each of up to `limit` orders after the same position, into one page:
 * the first `limit` of their union in list order, each order once, and a next position when any
 * scope had more or the union did.
 */
export function mergePages(pages: ListPage<OrderDoc>[], limit: number): ListPage<OrderDoc> {
  const seen = new Map<string, OrderDoc>();
  for (const doc of pages.flatMap((p) => p.docs)) seen.set(doc._id.toHexString(), doc);
  const union = [...seen.values()].sort(listOrder);
  const docs = union.slice(0, limit);
  const last = docs.at(-1);
  const more = union.length > limit || pages.some((p) => p.next !== null);
  return { docs, next: more && last ? { at: last.createdAt, id: last._id } : null };
}

/** Up to `limit` orders after `after`, over one scope or the union of a search's scopes. */
export async function searchPage(
  store: OrdersStore,
  scopes: ListScope[],
  filter: TransactionFilter,
  after: ListPosition | null,
  limit: number,
): Promise<ListPage<OrderDoc>> {
  if (scopes.length === 1 && scopes[0]) return store.page(scopes[0], filter, after, limit);
  const pages = await Promise.all(scopes.map((scope) => store.page(scope, filter, after, limit)));
  return mergePages(pages, limit);
}

/** An open read of many orders: each `take` returns up to `n` more, fewer only at the end. */
export interface OrderScan {
  take(n: number): Promise<OrderDoc[]>;
  close(): Promise<void>;
}

/** Pages at least this long read a busy minute's leaf of the time list once rather than once per chunk. */
const SCAN_PAGE = 1_000;

/** Every matching order in list order, a page at a time: the export reads about a chunk per chunk. */
export function searchScan(store: OrdersStore, scopes: ListScope[], filter: TransactionFilter): OrderScan {
  let after: ListPosition | null = null;
  let done = false;
  let held: OrderDoc[] = [];
  return {
    async take(n) {
      while (held.length < n && !done) {
        const got = await searchPage(store, scopes, filter, after, Math.max(n, SCAN_PAGE));
        held.push(...got.docs);
        after = got.next;
        done = got.next === null;
      }
      const docs = held.slice(0, n);
      held = held.slice(n);
      return docs;
    },
    close: async () => {
      done = true;
      held = [];
    },
  };
}
