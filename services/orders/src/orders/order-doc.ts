import type { Chain, Currency, OrderStatus, TransactionDto, TransactionType } from "@ramp/contracts";
import type { OutboxEntry } from "@ramp/runtime";
import type { ObjectId } from "mongodb";
import type { Keyed } from "../idempotency/once-per-key.ts";
import type { Pricing } from "../pricing/price-order.ts";
import { num } from "../pricing/quotes.ts";

/** An onramp or offramp order. Amounts are decimal strings; they become JSON numbers only in `toDto`. */
export interface OrderDoc extends Keyed, Pricing {
  _id: ObjectId;
  businessId: string;
  apiKeyId: string | null;
  transactionType: TransactionType;
  status: OrderStatus;
  /** Bumped on every status change; orders webhook deliveries. */
  sequence: number;
  chain: Chain;
  /** As the client sent them (replies echo these); `mintKey` is the normalised spelling. */
  mint: string;
  mintKey: string;
  recipient: string;
  currency: Currency;
  address: string;
  signature: string;
  sender: string;
  accountNumber: string;
  accountName: string;
  bank: string;
  bankCode: string;
  webhookURL: string | null;
  userExternalId: string | null;
  userId: string | null;
  description: string | null;
  errorReason: string | null;
  createdAt: Date;
  /** `createdAt`'s UTC day, YYYY-MM-DD (absent on orders stored before it was kept). */
  day?: string;
  /** When the order entered each status after INIT (absent on orders stored before it was kept). */
  statusTimes?: Partial<Record<OrderStatus, Date>>;
  /** The rail's reference of the offramp's payout, once the rail answered. */
  payoutReference?: string;
  /** Unpaid onramp orders are deleted after this instant. */
  expiresAt: Date | null;
  outbox: OutboxEntry[];
  /** Its buckets in its business's and in every business's list (`orderLists`); set on insert. */
  listKey?: string;
  allKey?: string;
}

/** The public Transaction: every field present, unknowns as "". */
export function toDto(o: OrderDoc): TransactionDto {
  return {
    id: o._id.toHexString(),
    address: o.address,
    signature: o.signature,
    mint: o.mint,
    currency: o.currency,
    amount: num(o.amount),
    usdcAmount: num(o.usdcAmount),
    fiatAmount: num(o.fiatAmount),
    sender: o.sender,
    recipient: o.recipient,
    rate: num(o.rate),
    status: o.status,
    transactionType: o.transactionType,
    createdAt: o.createdAt.toISOString(),
    accountNumber: o.accountNumber,
    accountName: o.accountName,
    bank: o.bank,
    fee: num(o.fee),
    chain: o.chain,
    userExternalId: o.userExternalId ?? "",
  };
}
