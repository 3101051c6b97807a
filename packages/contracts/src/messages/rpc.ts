import { z } from "zod";
import { DecimalString } from "../decimals.ts";
import { Chain, Currency, WebhookType } from "../enums.ts";
import { BankAccountDto, BankDto, BankQuery } from "../http/banks.ts";
import { ReindexAcceptedDto, ReindexCommand, TreasuryDto } from "../http/chain-ops.ts";
import { BankAccountPage, BusinessPageRequest, PaymentPage } from "../http/console-business.ts";
import {
  ConsoleDeliveryPage,
  RateHistoryPage,
  RateHistoryQuery,
  ROTATION_OVERLAP_MAX_HOURS,
  RotatedSecretDto,
} from "../http/console-keys.ts";
import { ConsoleTransactionDto, OverviewDto, TransactionSearch } from "../http/console-transactions.ts";
import {
  ExceptionDto,
  ExceptionKind,
  ExceptionPage,
  ExceptionStatus,
  FiatRefundRequest,
  ReconciliationDto,
  RefundDto,
  TokenRefundRequest,
} from "../http/money-ops.ts";
import { PaymentDto, PaymentOrder } from "../http/payments.ts";
import { QuoteDto, QuoteOrder } from "../http/quotes.ts";
import { RateDto, RatesDto } from "../http/rates.ts";
import { TRANSACTION_PAGE_MAX, TransactionFilter, TransactionPage } from "../http/transaction-list.ts";
import { OfframpOrder, OnrampOrder, TransactionDto } from "../http/transactions.ts";
import {
  DeliveryAttemptDto,
  UpdateWebhookRequest,
  WebhookConfigDto,
  WebhookTestResultDto,
} from "../http/webhooks.ts";

/** A request/reply subject with the schemas both sides validate against. */
export interface RpcContract<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
}
const rpc = <Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  response: Res,
): RpcContract<Req, Res> => ({ subject, request, response });

const BusinessScoped = { businessId: z.string() };
/** null: every business's, which only the console's operators ask for. */
const AnyBusiness = { businessId: z.string().nullable() };
/** Who is calling, for orders that must know which key's webhook config applies. */
const Caller = { businessId: z.string(), apiKeyId: z.string() };
const Ok = z.object({ ok: z.literal(true) });
/**
 * Set when the HTTP request carried an Idempotency-Key: an opaque value, the same on every retry of
 * that request. The service that owns the effect makes it once per (business, idempotencyKey), so a
 * retry after a lost answer (a 503 whose work was in fact done) never does it a second time. Where
 * the request names no business (rail and watcher sandbox deposits), the caller scoped the value.
 */
const Idempotent = { idempotencyKey: z.string().min(1).max(300).optional() };

/** Rows one export chunk carries: about 0.5 KB per order keeps a reply well under NATS's 1 MB. */
export const TRANSACTION_EXPORT_CHUNK = 500;

/** A run of an export's rows, newest first; `next` is the subject to ask for the following run, "" after the last. */
export const TransactionChunk = z.object({ data: z.array(TransactionDto), next: z.string() });
export type TransactionChunk = z.infer<typeof TransactionChunk>;

/**
 * The subject of one instance of a contract whose subject ends in `*` (answered by one process, not a
 * queue group): the token must be a single subject token, so it can never widen into a wildcard.
 */
export function instanceSubject(contract: RpcContract, token: string): string {
  if (!contract.subject.endsWith(".*")) throw new Error(`${contract.subject} has no instance token`);
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error(`not a subject token: ${token}`);
  return `${contract.subject.slice(0, -1)}${token}`;
}

export const VirtualAccount = z.object({
  accountNumber: z.string(),
  accountName: z.string(),
  bank: z.string(),
});
export type VirtualAccount = z.infer<typeof VirtualAccount>;

export const BankAccountRecord = BankAccountDto.extend({
  bankCode: z.string(),
  /** Payout currency, from the bank's country. */
  currency: Currency,
  /** Every business that registered it, first registrant first. */
  businessIds: z.array(z.string()),
});
export type BankAccountRecord = z.infer<typeof BankAccountRecord>;

export const AddressPurpose = z.enum(["offramp", "bank-account", "payment"]);
export type AddressPurpose = z.infer<typeof AddressPurpose>;

export const Rpc = {
  // pricing
  ratesGet: rpc(
    "ramp.pricing.rates.get",
    z.object({
      ...BusinessScoped,
      currency: Currency,
      /**
       * Computed from pricing's database rather than its replica's memory. For a caller that keeps the
       * answer and has just seen a change on pricing's feed: the replica answering may not have seen it yet.
       */
      fresh: z.boolean().optional(),
    }),
    RatesDto,
  ),
  marketRateSet: rpc(
    "ramp.pricing.market-rates.set",
    z.object({ currency: Currency, onRamp: DecimalString, offRamp: DecimalString }),
    z.object({ onRampRate: RateDto, offRampRate: RateDto }),
  ),
  marketRateDelete: rpc("ramp.pricing.market-rates.delete", z.object({ currency: Currency }), Ok),
  /** The market rate itself, no business's fee applied (the console's rates page). */
  marketRateGet: rpc("ramp.pricing.market-rates.get", z.object({ currency: Currency }), RatesDto),
  marketRateHistory: rpc("ramp.pricing.market-rates.history", RateHistoryQuery, RateHistoryPage),
  profileSet: rpc(
    "ramp.pricing.profiles.set",
    z.object({ ...BusinessScoped, feeBps: z.number().int().min(0) }),
    Ok,
  ),
  /** Each named business's fee (0 for one never set): the console's business pages show pricing's own. */
  profilesGet: rpc(
    "ramp.pricing.profiles.get",
    z.object({ businessIds: z.array(z.string()).max(1_000) }),
    z.object({ feeBps: z.record(z.string(), z.number().int().min(0)) }),
  ),

  // banking
  banksList: rpc("ramp.banking.banks.list", BankQuery, z.array(BankDto)),
  accountsRegister: rpc(
    "ramp.banking.accounts.register",
    z.object({ ...BusinessScoped, bankCode: z.string(), accountNumber: z.string() }),
    BankAccountDto,
  ),
  accountsLookup: rpc(
    "ramp.banking.accounts.lookup",
    z.object({ ...BusinessScoped, address: z.string().optional(), accountNumber: z.string().optional() }),
    BankAccountDto,
  ),
  /** The business's registered accounts, newest first (the console's bank accounts page). */
  accountsList: rpc("ramp.banking.accounts.list", BusinessPageRequest, BankAccountPage),
  /** Unscoped, for orders: which account (and businesses) a bank-account deposit address pays. */
  accountsGet: rpc("ramp.banking.accounts.get", z.object({ address: z.string() }), BankAccountRecord),
  accountsResolve: rpc(
    "ramp.banking.accounts.resolve",
    z.object({ bankCode: z.string(), accountNumber: z.string() }),
    z.object({ bankName: z.string(), accountName: z.string() }),
  ),
  virtualAccountOpen: rpc(
    "ramp.banking.virtual-accounts.open",
    z.object({ ref: z.string(), currency: Currency, fiatAmount: DecimalString, holder: z.string() }),
    VirtualAccount,
  ),
  virtualAccountClose: rpc("ramp.banking.virtual-accounts.close", z.object({ ref: z.string() }), Ok),
  kycVerify: rpc(
    "ramp.banking.kyc.verify",
    z.object({ ...BusinessScoped, bvn: z.string() }),
    z.object({ userId: z.string(), fullName: z.string() }),
  ),
  sandboxFiatDeposit: rpc(
    "ramp.banking.sandbox.fiat-deposit",
    z.object({ ref: z.string(), fiatAmount: DecimalString.optional(), ...Idempotent }),
    z.object({ reference: z.string() }),
  ),

  // orders
  onrampCreate: rpc(
    "ramp.orders.onramp.create",
    z.object({ ...Caller, ...Idempotent, body: OnrampOrder }),
    TransactionDto,
  ),
  offrampCreate: rpc(
    "ramp.orders.offramp.create",
    z.object({ ...Caller, ...Idempotent, body: OfframpOrder }),
    TransactionDto,
  ),
  transactionGet: rpc(
    "ramp.orders.transaction.get",
    z.object({ ...BusinessScoped, id: z.string() }),
    TransactionDto,
  ),
  /** One page of the business's orders (every business's: the console's operators), newest first, after `cursor`. */
  transactionList: rpc(
    "ramp.orders.transaction.list",
    z.object({
      ...AnyBusiness,
      filter: TransactionFilter,
      q: TransactionSearch.optional(),
      limit: z.number().int().min(1).max(TRANSACTION_PAGE_MAX),
      cursor: z.string().optional(),
    }),
    TransactionPage,
  ),
  /**
   * Opens a CSV export: the first chunk of the business's matching orders, read through one database
   * cursor that the answering orders process keeps open for the rest. One query for the whole export,
   * not one per page: a database that cannot serve the sort from an index (FerretDB) sorts once.
   */
  transactionExport: rpc(
    "ramp.orders.transaction.export",
    z.object({ ...AnyBusiness, filter: TransactionFilter, q: TransactionSearch.optional() }),
    TransactionChunk,
  ),
  /**
   * The next chunk of an open export, answered only by the process holding its cursor, on the
   * `next` subject its previous chunk named (see `instanceSubject`). `stop` closes the export early.
   */
  transactionExportNext: rpc(
    "ramp.orders.transaction.export.next.*",
    z.object({ stop: z.boolean().optional() }),
    TransactionChunk,
  ),
  /** The exceptions queue (orders keeps it), newest first; businessId narrows it to one business. */
  exceptionList: rpc(
    "ramp.orders.exceptions.list",
    z.object({
      kind: ExceptionKind.optional(),
      status: ExceptionStatus.optional(),
      businessId: z.string().optional(),
      limit: z.number().int().min(1).max(100),
      cursor: z.string().optional(),
    }),
    ExceptionPage,
  ),
  /** Closes an exception with the operator's note; resolving a resolved one changes nothing. */
  exceptionResolve: rpc(
    "ramp.orders.exceptions.resolve",
    z.object({ id: z.string(), note: z.string(), by: z.string() }),
    z.object({ exception: ExceptionDto, changed: z.boolean() }),
  ),
  /**
   * Refunds a received fund that was not applied (or, with `orderId`, the applied deposit of an ERROR
   * offramp), once: every repeat answers the same refund.
   */
  fundRefund: rpc(
    "ramp.orders.funds.refund",
    z.object({
      fundId: z.string().optional(),
      orderId: z.string().optional(),
      destination: z.union([TokenRefundRequest, FiatRefundRequest]),
      by: z.string(),
    }),
    z.object({ refund: RefundDto, created: z.boolean() }),
  ),
  /** The day's books from orders' side, checked against banking's payouts and chain-watcher's transfers. */
  reconciliation: rpc("ramp.orders.reconciliation", z.object({ date: z.string() }), ReconciliationDto),
  /** An order with what orders knows of its history: statuses, deposits, the payout or delivery. */
  transactionTimeline: rpc(
    "ramp.orders.transaction.timeline",
    z.object({ ...AnyBusiness, id: z.string() }),
    ConsoleTransactionDto,
  ),
  /** Per-day counts and volumes of the orders created in a span of days (the console's charts). */
  transactionOverview: rpc(
    "ramp.orders.transaction.overview",
    z.object({ ...AnyBusiness, from: z.string(), to: z.string() }),
    OverviewDto,
  ),
  quoteCreate: rpc("ramp.orders.quote.create", z.object({ ...BusinessScoped, body: QuoteOrder }), QuoteDto),
  paymentCreate: rpc(
    "ramp.orders.payment.create",
    z.object({ ...Caller, ...Idempotent, body: PaymentOrder }),
    PaymentDto,
  ),
  paymentGet: rpc("ramp.orders.payment.get", z.object({ ...BusinessScoped, id: z.string() }), PaymentDto),
  /** The business's payments, newest first (the console's payments page). */
  paymentList: rpc("ramp.orders.payment.list", BusinessPageRequest, PaymentPage),
  sandboxDeposit: rpc(
    "ramp.orders.sandbox.deposit",
    z.object({
      ...BusinessScoped,
      kind: z.enum(["onramp", "offramp", "payment"]),
      id: z.string(),
      amount: DecimalString.optional(),
      ...Idempotent,
    }),
    z.object({ reference: z.string() }),
  ),

  /** The payouts banking created in [from, to), one page after `cursor` (a payout id). */
  payoutsOfDay: rpc(
    "ramp.banking.payouts.day",
    z.object({
      from: z.string(),
      to: z.string(),
      cursor: z.string().optional(),
      limit: z.number().int().max(1000),
    }),
    z.object({
      data: z.array(
        z.object({
          id: z.string(),
          status: z.string(),
          reference: z.string().nullable(),
          currency: Currency,
          fiatAmount: DecimalString,
        }),
      ),
      nextCursor: z.string(),
    }),
  ),

  // chain-watcher
  /** What became of outbound transfers by request id; an id chain-watcher never got is left out. */
  transfersStatus: rpc(
    "ramp.chain.transfers.status",
    z.object({ requestIds: z.array(z.string()).max(1000) }),
    z.array(z.object({ requestId: z.string(), status: z.string(), signature: z.string().nullable() })),
  ),
  addressAllocate: rpc(
    "ramp.chain.address.allocate",
    z.object({ chain: Chain, purpose: AddressPurpose, ref: z.string(), mints: z.array(z.string()) }),
    z.object({ address: z.string() }),
  ),
  /**
   * What orders needs to price a token on a chain: its decimals, whether it is the chain's settlement
   * stablecoin, its USD price (1 for the stablecoin; the swap/price adapter otherwise) and, with a
   * recipient (or `newRecipient`), the USD cost of preparing it (Solana token-account rent, else 0).
   */
  tokenInfo: rpc(
    "ramp.chain.token.info",
    z.object({
      chain: Chain,
      mint: z.string(),
      recipient: z.string().optional(),
      /** Without a recipient (a quote): price the setup a recipient that never held `mint` needs. */
      newRecipient: z.boolean().optional(),
    }),
    z.object({
      decimals: z.number().int(),
      stablecoin: z.boolean(),
      usdPrice: DecimalString,
      setupCostUsd: DecimalString,
    }),
  ),
  /** Every served chain's treasury balances against its TREASURY_MIN_<CHAIN>. */
  chainTreasury: rpc("ramp.chain.treasury.get", z.object({}), TreasuryDto),
  /** Scan a bounded range of a chain again for transfers to watched addresses (400 past the bound). */
  chainReindex: rpc("ramp.chain.reindex", ReindexCommand, ReindexAcceptedDto),
  sandboxChainDeposit: rpc(
    "ramp.chain.sandbox.deposit",
    z.object({ chain: Chain, address: z.string(), mint: z.string(), amount: DecimalString, ...Idempotent }),
    z.object({ reference: z.string() }),
  ),

  // webhook-dispatcher
  webhookConfigGet: rpc("ramp.webhooks.config.get", z.object({ apiKeyId: z.string() }), WebhookConfigDto),
  /** A new signing secret; the old one keeps signing beside it for `overlapHours`. */
  webhookSecretRotate: rpc(
    "ramp.webhooks.secret.rotate",
    z.object({ apiKeyId: z.string(), overlapHours: z.number().int().min(0).max(ROTATION_OVERLAP_MAX_HOURS) }),
    RotatedSecretDto,
  ),
  webhookConfigUpdate: rpc(
    "ramp.webhooks.config.update",
    z.object({ apiKeyId: z.string(), body: UpdateWebhookRequest }),
    WebhookConfigDto,
  ),
  webhookTest: rpc(
    "ramp.webhooks.test",
    z.object({ apiKeyId: z.string(), type: WebhookType }),
    WebhookTestResultDto,
  ),
  webhookDeliveries: rpc(
    "ramp.webhooks.deliveries.list",
    z.object({ apiKeyId: z.string(), id: z.string().optional(), limit: z.number().int() }),
    z.array(DeliveryAttemptDto),
  ),
  /** The console's delivery log: several keys at once, by outcome, one page after `cursor`. */
  webhookDeliveryPage: rpc(
    "ramp.webhooks.deliveries.page",
    z.object({
      /** Absent: every key's (an operator redelivering by id). */
      apiKeyIds: z.array(z.string()).max(1000).optional(),
      subjectId: z.string().optional(),
      deliveryId: z.string().optional(),
      delivered: z.boolean().optional(),
      limit: z.number().int().min(1).max(100),
      cursor: z.string().optional(),
    }),
    ConsoleDeliveryPage,
  ),
  webhookRedeliver: rpc(
    "ramp.webhooks.deliveries.redeliver",
    z.object({ apiKeyId: z.string(), deliveryId: z.string() }),
    WebhookTestResultDto,
  ),
} as const;
