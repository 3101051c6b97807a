import { z } from "zod";
import { Chain, Currency, OrderStatus, TransactionType } from "../enums.ts";
import { boundedString, TEXT_MAX } from "../text.ts";
import { TransactionDto } from "./transactions.ts";

/** An ISO 8601 date-time filter (`from`, `to`), bounded before it is parsed. */
export const DateTimeFilter = z
  .string()
  .max(TEXT_MAX.dateTime, { abort: true })
  .check(z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time" }));

/** Filters of the transaction list and export; `from` is inclusive, `to` exclusive (on `createdAt`). */
export const TransactionFilter = z.strictObject({
  type: TransactionType.optional(),
  status: OrderStatus.optional(),
  chain: Chain.optional(),
  currency: Currency.optional(),
  from: DateTimeFilter.optional(),
  to: DateTimeFilter.optional(),
});
export type TransactionFilter = z.infer<typeof TransactionFilter>;

/** The export takes the filters alone: it always runs to the end. */
export const TransactionExportQuery = TransactionFilter;

export const TRANSACTION_PAGE_DEFAULT = 20;
export const TRANSACTION_PAGE_MAX = 100;

export const TransactionListQuery = TransactionFilter.extend({
  limit: z.coerce.number().int().min(1).max(TRANSACTION_PAGE_MAX).default(TRANSACTION_PAGE_DEFAULT),
  /** Opaque; the `nextCursor` of the previous page. */
  cursor: boundedString(TEXT_MAX.cursor).optional(),
});
export type TransactionListQuery = z.infer<typeof TransactionListQuery>;

/**
 * Newest first (`createdAt`, then `id`, both descending); `nextCursor` is "" on the last page. A page
 * reads a bounded amount of history, so a sparse filter may answer fewer than `limit` (even none) with
 * a `nextCursor` still to follow.
 */
export const TransactionPage = z
  .object({ data: z.array(TransactionDto), nextCursor: z.string() })
  .meta({ id: "TransactionPageDto" });
export type TransactionPage = z.infer<typeof TransactionPage>;
