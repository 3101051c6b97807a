import { z } from "zod";
import { MAX_ADDRESS_LENGTH } from "../addresses.ts";
import { DecimalString } from "../decimals.ts";
import { Chain, Currency, EXCEPTION_KINDS } from "../enums.ts";
import { boundedString, shapedString, TEXT_MAX } from "../text.ts";
import { ConsoleListQuery, consolePage } from "./console.ts";
import { ObjectIdString } from "./transactions.ts";

export const ExceptionKind = z.enum(EXCEPTION_KINDS);
export type ExceptionKind = z.infer<typeof ExceptionKind>;

export const ExceptionStatus = z.enum(["open", "resolved"]);
export type ExceptionStatus = z.infer<typeof ExceptionStatus>;

/** What an exception is about, as its raiser describes it (the queue's entries and the raise events alike). */
export const ExceptionAbout = z.object({
  kind: ExceptionKind,
  businessId: z.string().nullable(),
  orderId: z.string().optional(),
  fundId: z.string().optional(),
  chain: Chain.optional(),
  token: z.string().optional(),
  /** Token units or fiat, as the fund or order holds it. */
  amount: DecimalString.optional(),
  currency: Currency.optional(),
  /** ISO 8601. */
  since: z.string(),
  detail: z.string(),
});

export const ExceptionDto = ExceptionAbout.extend({
  id: z.string(),
  status: ExceptionStatus,
  resolvedAt: z.string().nullable(),
  /** Why it was resolved: the operator's note, or what closed it (a refund, the condition passing). */
  note: z.string().nullable(),
});
export type ExceptionDto = z.infer<typeof ExceptionDto>;
export const ExceptionPage = consolePage(ExceptionDto);
export type ExceptionPage = z.infer<typeof ExceptionPage>;

export const ExceptionQuery = ConsoleListQuery.extend({
  kind: ExceptionKind.optional(),
  status: ExceptionStatus.optional(),
  businessId: ObjectIdString.optional(),
});
export type ExceptionQuery = z.infer<typeof ExceptionQuery>;

export const ExceptionParams = z.strictObject({ id: ObjectIdString });
export const ResolveExceptionRequest = z.strictObject({ note: boundedString(TEXT_MAX.freeText, { min: 1 }) });

/** A received fund's id as orders wrote it: `fiat:<rail reference>` or `chain:<chain>:<txId>:<index>`. */
export const FundId = shapedString(200, /^(fiat|chain):[A-Za-z0-9:_.-]+$/, "not a fund id", { min: 1 });
export const FundParams = z.strictObject({ id: FundId });

/** Tokens go back on the chain they came on; fiat through the rail's payout to a bank account. */
export const TokenRefundRequest = z.strictObject({
  toAddress: boundedString(MAX_ADDRESS_LENGTH, { min: 1 }),
});
export const FiatRefundRequest = z.strictObject({
  bankCode: boundedString(TEXT_MAX.code, { min: 1 }),
  accountNumber: boundedString(TEXT_MAX.identifier, { min: 1 }),
});
export const RefundRequest = z.union([TokenRefundRequest, FiatRefundRequest]);
export type RefundRequest = z.infer<typeof RefundRequest>;

export const RefundState = z.enum(["pending", "sent", "failed"]);
export type RefundState = z.infer<typeof RefundState>;

/** One refund, claimed once per fund whichever route or click asked for it. */
export const RefundDto = z.object({
  id: z.string(),
  fundId: z.string(),
  orderId: z.string().nullable(),
  state: RefundState,
  destination: RefundRequest,
  chain: Chain.nullable(),
  token: z.string().nullable(),
  currency: Currency.nullable(),
  amount: DecimalString,
  /** The chain transaction, once sent. */
  txHash: z.string().nullable(),
  /** The rail's payout reference, once sent. */
  railReference: z.string().nullable(),
  reason: z.string().nullable(),
  requestedAt: z.string(),
  /** The attempt under way or last made, from 1: a failed refund asked again starts the next one. */
  attempt: z.number().int().min(1),
  /** Earlier attempts that failed for good, oldest first. */
  failedAttempts: z.array(
    z.object({
      attempt: z.number().int().min(1),
      destination: RefundRequest,
      txHash: z.string().nullable(),
      railReference: z.string().nullable(),
      reason: z.string().nullable(),
      requestedAt: z.string(),
    }),
  ),
});
export type RefundDto = z.infer<typeof RefundDto>;

/** A UTC calendar day. */
export const DayString = shapedString(10, /^\d{4}-\d{2}-\d{2}$/, "date must be YYYY-MM-DD").refine(
  (d) =>
    !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
  {
    message: "date is not a calendar day",
  },
);
export const ReconciliationQuery = z.strictObject({ date: DayString });

/**
 * One currency and chain's day: orders completed that day and what moved for them (fiat in from
 * onramp payers, out to offramp payees; tokens in from offramp senders, out to onramp recipients),
 * the fees they earned, and the refunds sent that day (a token refund has no currency, a fiat one no chain).
 */
export const ReconciliationRow = z.object({
  currency: Currency.nullable(),
  chain: Chain.nullable(),
  ordersCompleted: z.number().int(),
  fiatIn: DecimalString,
  fiatOut: DecimalString,
  tokensIn: DecimalString,
  tokensOut: DecimalString,
  feesEarned: DecimalString,
  refunds: z.number().int(),
  fiatRefunded: DecimalString,
  tokensRefunded: DecimalString,
});
export type ReconciliationRow = z.infer<typeof ReconciliationRow>;

export const MISMATCH_KINDS = [
  /** A completed offramp without an applied deposit. */
  "offramp-without-deposit",
  /** A payout the rail made for no order (or refund) orders knows. */
  "payout-without-order",
  /** An onramp completed without a confirmed transfer. */
  "onramp-without-transfer",
  /** A received fund neither applied, refunded, nor open in the exceptions queue. */
  "fund-unaccounted",
] as const;
export const MismatchKind = z.enum(MISMATCH_KINDS);
export const ReconciliationMismatch = z.object({
  kind: MismatchKind,
  /** The order, payout or fund it is about. */
  ref: z.string(),
  detail: z.string(),
});
export type ReconciliationMismatch = z.infer<typeof ReconciliationMismatch>;

export const ReconciliationDto = z.object({
  date: z.string(),
  rows: z.array(ReconciliationRow),
  mismatches: z.array(ReconciliationMismatch),
});
export type ReconciliationDto = z.infer<typeof ReconciliationDto>;
