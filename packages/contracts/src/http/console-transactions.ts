import { z } from "zod";
import { Chain, Currency, OrderStatus } from "../enums.ts";
import { boundedString, TEXT_MAX } from "../text.ts";
import { DayString } from "./money-ops.ts";
import { TransactionFilter, TransactionListQuery } from "./transaction-list.ts";
import { ObjectIdString, TransactionDto } from "./transactions.ts";

/**
 * A search term: an order id, a deposit address, an account number, a tx hash or a `userExternalId`,
 * matched exactly (addresses as the order stored them).
 */
export const TransactionSearch = boundedString(TEXT_MAX.url, { min: 1 });

/** Operators name a business or see every one; a member's own is implied. */
const ConsoleScope = { businessId: ObjectIdString.optional(), q: TransactionSearch.optional() };

export const ConsoleTransactionListQuery = TransactionListQuery.extend(ConsoleScope);
export type ConsoleTransactionListQuery = z.infer<typeof ConsoleTransactionListQuery>;
export const ConsoleTransactionExportQuery = TransactionFilter.extend(ConsoleScope);
export type ConsoleTransactionExportQuery = z.infer<typeof ConsoleTransactionExportQuery>;

/** Each entry of a transaction's history, oldest first. */
export const TimelineKind = z.enum(["status", "deposit", "payout", "transfer", "refund", "webhook"]);
export type TimelineKind = z.infer<typeof TimelineKind>;

/**
 * `detail` by kind — status: `{status, errorReason?}`; deposit: `{fundId, outcome, amount, txHash |
 * railReference, sender?}`; payout: `{status, railReference}`; transfer: `{status, txHash}`; refund:
 * `{fundId, destination, txHash | railReference}`; webhook: `{deliveryId, attempt, url, delivered,
 * statusCode, durationMs, error}`.
 */
export const TimelineEntryDto = z.object({
  at: z.string(),
  kind: TimelineKind,
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});
export type TimelineEntryDto = z.infer<typeof TimelineEntryDto>;

/** Oldest first; entries of the same instant keep the order they were given in. */
export const sortTimeline = (entries: TimelineEntryDto[]): TimelineEntryDto[] =>
  [...entries].sort((a, b) => a.at.localeCompare(b.at));

export const ConsoleTransactionDto = TransactionDto.extend({
  businessId: z.string(),
  timeline: z.array(TimelineEntryDto),
}).meta({ id: "ConsoleTransactionDto" });
export type ConsoleTransactionDto = z.infer<typeof ConsoleTransactionDto>;

/** The longest span one overview reads. */
export const OVERVIEW_MAX_DAYS = 92;

/** Days in UTC, both inclusive; by default the last 30 days up to today. */
export const OverviewQuery = z
  .strictObject({
    from: DayString.optional(),
    to: DayString.optional(),
    businessId: ObjectIdString.optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, "from must not be after to");
export type OverviewQuery = z.infer<typeof OverviewQuery>;

/** One day of orders created that day: counts by current status, and the volume of the completed ones. */
export const OverviewDayDto = z.object({
  date: z.string(),
  byStatus: z.record(OrderStatus, z.number().int()),
  /** Fiat of completed orders per currency, decimal strings. */
  fiat: z.array(z.object({ currency: Currency, amount: z.string() })),
  /** Tokens of completed orders per chain (their stablecoin amount), decimal strings. */
  tokens: z.array(z.object({ chain: Chain, amount: z.string() })),
});
export const OverviewDto = z
  .object({ from: z.string(), to: z.string(), days: z.array(OverviewDayDto) })
  .meta({ id: "ConsoleOverviewDto" });
export type OverviewDto = z.infer<typeof OverviewDto>;
