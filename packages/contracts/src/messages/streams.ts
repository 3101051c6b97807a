import { z } from "zod";
import { DecimalString } from "../decimals.ts";
import { Chain, Currency, WebhookType } from "../enums.ts";
import { ExceptionAbout, ExceptionKind } from "../http/money-ops.ts";
import { PaymentDto } from "../http/payments.ts";
import { TransactionDto } from "../http/transactions.ts";
import { AddressPurpose } from "./rpc.ts";

/** JetStream streams: facts that happened (events) and work someone must do (commands). */
export const STREAMS = {
  events: { name: "RAMP_EVENTS", subjects: ["ramp.evt.>"] },
  commands: { name: "RAMP_COMMANDS", subjects: ["ramp.cmd.>"] },
} as const;
export type StreamName = (typeof STREAMS)[keyof typeof STREAMS]["name"];

export interface StreamContract<P extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly stream: StreamName;
  readonly payload: P;
}
const evt = <P extends z.ZodType>(subject: string, payload: P): StreamContract<P> => ({
  subject,
  stream: STREAMS.events.name,
  payload,
});
const cmd = <P extends z.ZodType>(subject: string, payload: P): StreamContract<P> => ({
  subject,
  stream: STREAMS.commands.name,
  payload,
});

export const OrderStatusChanged = z.object({
  businessId: z.string(),
  apiKeyId: z.string().nullable(),
  webhookURL: z.string().nullable(),
  /** Monotonic per order, so a receiver of stale updates can be protected. */
  sequence: z.number().int(),
  order: TransactionDto,
});
/** An order is created at sequence 0 (INIT), which is never announced: its first status change is 1. */
export const FIRST_ANNOUNCED_SEQUENCE = 1;
export type OrderStatusChanged = z.infer<typeof OrderStatusChanged>;

export const PaymentSettled = z.object({
  businessId: z.string(),
  apiKeyId: z.string(),
  payment: PaymentDto,
});
export type PaymentSettled = z.infer<typeof PaymentSettled>;

export const FiatDepositReceived = z.object({
  /** The order or payment the virtual account was opened for. */
  ref: z.string(),
  reference: z.string(),
  accountNumber: z.string(),
  currency: Currency,
  fiatAmount: DecimalString,
  payerName: z.string(),
});
export type FiatDepositReceived = z.infer<typeof FiatDepositReceived>;

export const PayoutResult = z.object({
  orderId: z.string(),
  status: z.enum(["COMPLETED", "FAILED"]),
  reference: z.string(),
  reason: z.string().nullable(),
});
export type PayoutResult = z.infer<typeof PayoutResult>;

export const DepositToken = z.object({
  decimals: z.number().int(),
  /** Whether it is the chain's settlement stablecoin. */
  stablecoin: z.boolean(),
  /** USD per token: 1 for the stablecoin; null when chain-watcher has no price for it. */
  usdPrice: DecimalString.nullable(),
});
export type DepositToken = z.infer<typeof DepositToken>;

export const DepositObserved = z.object({
  chain: Chain,
  txId: z.string(),
  index: z.number().int(),
  address: z.string(),
  mint: z.string(),
  /** In token units (decimals applied), as a decimal string. */
  amount: DecimalString,
  sender: z.string(),
  purpose: AddressPurpose,
  ref: z.string(),
  /**
   * What chain-watcher knows of the token as it records the transfer, so a consumer opening an order
   * from the deposit prices it from the event instead of asking chain-watcher back.
   */
  token: DepositToken,
});
export type DepositObserved = z.infer<typeof DepositObserved>;

export const TransferResult = z.object({
  requestId: z.string(),
  status: z.enum(["CONFIRMED", "FAILED"]),
  signature: z.string(),
  reason: z.string().nullable(),
});
export type TransferResult = z.infer<typeof TransferResult>;

export const TransferCommand = z.object({
  requestId: z.string(),
  chain: Chain,
  mint: z.string(),
  recipient: z.string(),
  amount: DecimalString,
});
export type TransferCommand = z.infer<typeof TransferCommand>;

export const PayoutCommand = z.object({
  orderId: z.string(),
  bankCode: z.string(),
  accountNumber: z.string(),
  accountName: z.string(),
  currency: Currency,
  fiatAmount: DecimalString,
  narration: z.string(),
});
export type PayoutCommand = z.infer<typeof PayoutCommand>;

/**
 * A service that sees something an operator must handle raises it; when the condition passes it clears
 * it. `key` names the exception: raising it again (a redelivery, a second sighting) is the same
 * exception. A condition that can come back (an endpoint failing again next month) puts its episode in
 * the key. Raise and clear travel on one subject per raising service, so a clear never overtakes its raise.
 */
export const ExceptionSignal = z.discriminatedUnion("action", [
  ExceptionAbout.extend({ action: z.literal("raise"), key: z.string().min(1) }),
  z.object({ action: z.literal("clear"), key: z.string().min(1), note: z.string() }),
]);
export type ExceptionSignal = z.infer<typeof ExceptionSignal>;

/** An exception closed in the queue (by an operator or a refund), for the service that raised it. */
export const ExceptionResolved = z.object({ key: z.string(), kind: ExceptionKind, note: z.string() });
export type ExceptionResolved = z.infer<typeof ExceptionResolved>;

export const Events = {
  orderStatusChanged: evt("ramp.evt.orders.status-changed", OrderStatusChanged),
  paymentSettled: evt("ramp.evt.payments.settled", PaymentSettled),
  fiatDepositReceived: evt("ramp.evt.banking.fiat-deposit", FiatDepositReceived),
  payoutResult: evt("ramp.evt.banking.payout-result", PayoutResult),
  depositObserved: evt("ramp.evt.chain.deposit-observed", DepositObserved),
  transferResult: evt("ramp.evt.chain.transfer-result", TransferResult),
  /** Every event has one publisher: each service that raises exceptions has its own subject for them. */
  webhookExceptions: evt("ramp.evt.webhooks.exceptions", ExceptionSignal),
  chainExceptions: evt("ramp.evt.chain.exceptions", ExceptionSignal),
  exceptionResolved: evt("ramp.evt.orders.exception-resolved", ExceptionResolved),
} as const;

export const Commands = {
  chainTransfer: cmd("ramp.cmd.chain.transfer", TransferCommand),
  bankingPayout: cmd("ramp.cmd.banking.payout", PayoutCommand),
} as const;

/**
 * One signed POST the webhook dispatcher owes a receiver: its own work queue, not an event. The
 * destination is resolved and the body serialised once, when the event arrives; every attempt sends
 * (and re-signs) exactly these bytes.
 */
export const WebhookDelivery = z.object({
  /** Stable per delivery (derived from the event), so re-publishing the same event is deduplicated. */
  deliveryId: z.string(),
  type: WebhookType,
  /** null: an order opened without an API key, delivered unsigned. */
  apiKeyId: z.string().nullable(),
  /** Order id or payment id. */
  subjectId: z.string(),
  /** The order's status sequence (0 for payments): a lower one is never sent after a higher one succeeded. */
  sequence: z.number().int(),
  url: z.string(),
  body: z.string(),
  /**
   * Epoch milliseconds before which it is not attempted: set when a delivery taken straight from its
   * event is handed to the queue to wait (a retry's pause, a slow endpoint's turn, a paused endpoint's
   * next look). A replica that predates it ignores it and tries at once.
   */
  notBefore: z.number().int().optional(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/**
 * Everything the webhook dispatcher names in NATS besides the events it consumes: its work-queue
 * stream of pending deliveries (messages leave it once acknowledged; retries wait in it as delayed
 * redeliveries), the shared durable consumer every replica pulls from, the KV bucket holding each
 * lane's ordering state. (The durables it reads the events through are in ownership.ts.)
 */
export const WebhookWork = {
  stream: { name: "RAMP_WEBHOOK_WORK", subjects: ["ramp.work.webhooks.>"] },
  deliver: { subject: "ramp.work.webhooks.deliver", payload: WebhookDelivery },
  durable: "webhook-dispatcher-deliveries",
  /** Its stream is `KV_<bucket>`, its subjects `$KV.<bucket>.>`. */
  lanesBucket: "ramp_webhook_lanes",
} as const;
