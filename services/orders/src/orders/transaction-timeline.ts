import {
  DepositObserved,
  FiatDepositReceived,
  notFound,
  type OrderStatus,
  type Rpc,
  sortTimeline,
  type TimelineEntryDto,
} from "@ramp/contracts";
import type { z } from "zod";
import { type OrderDoc, toDto } from "./order-doc.ts";
import type { OrdersStore } from "./orders-store.ts";
import type { ReceivedFunds, ReceivedFundsDoc } from "./received-funds.ts";

type Timeline = z.infer<typeof Rpc.transactionTimeline.response>;

/** What one received fund shows: its outcome, amount and where it came from (tx hash or rail reference). */
function depositEntry(fund: ReceivedFundsDoc): TimelineEntryDto {
  const chain = DepositObserved.safeParse(fund.detail);
  const fiat = FiatDepositReceived.safeParse(fund.detail);
  const source: TimelineEntryDto["detail"] = chain.success
    ? { amount: chain.data.amount, txHash: chain.data.txId, sender: chain.data.sender }
    : fiat.success
      ? { amount: fiat.data.fiatAmount, railReference: fiat.data.reference, sender: fiat.data.payerName }
      : {};
  return {
    at: fund.receivedAt.toISOString(),
    kind: "deposit",
    detail: { fundId: fund._id, outcome: fund.outcome, ...source },
  };
}

/** A refund sent back from one of the order's funds: where to, and its tx hash or rail reference. */
function refundEntries(fund: ReceivedFundsDoc): TimelineEntryDto[] {
  if (!fund.refund) return [];
  const { txHash, railReference, destination, at } = fund.refund;
  const detail: TimelineEntryDto["detail"] = { fundId: fund._id, destination };
  if (txHash) detail.txHash = txHash;
  else detail.railReference = railReference;
  return [{ at: at.toISOString(), kind: "refund", detail }];
}

/** The entries an order itself records: each status it entered, and how its PROCESSING ended. */
export function orderEntries(order: OrderDoc): TimelineEntryDto[] {
  const entries: TimelineEntryDto[] = [
    { at: order.createdAt.toISOString(), kind: "status", detail: { status: "INIT" } },
  ];
  const times = Object.entries(order.statusTimes ?? {}) as [OrderStatus, Date][];
  for (const [status, at] of times) {
    const detail: TimelineEntryDto["detail"] = { status };
    if (status === "ERROR") detail.errorReason = order.errorReason;
    entries.push({ at: at.toISOString(), kind: "status", detail });
  }
  const ended = order.statusTimes?.COMPLETED ?? order.statusTimes?.ERROR;
  const outcome = order.status === "COMPLETED" ? "COMPLETED" : "FAILED";
  if (ended && order.transactionType === "OFF_RAMP" && order.payoutReference)
    entries.push({
      at: ended.toISOString(),
      kind: "payout",
      detail: { status: outcome, railReference: order.payoutReference, accountNumber: order.accountNumber },
    });
  if (ended && order.transactionType === "ON_RAMP" && order.signature)
    entries.push({
      at: ended.toISOString(),
      kind: "transfer",
      detail: { status: outcome, txHash: order.signature, recipient: order.recipient },
    });
  return entries;
}

/** An order with what orders knows of its history (the gateway adds the webhook attempts). */
export async function transactionTimeline(
  store: OrdersStore,
  funds: ReceivedFunds,
  req: z.infer<typeof Rpc.transactionTimeline.request>,
): Promise<Timeline> {
  const order = await store.getForBusiness(req.id, req.businessId);
  if (!order) throw notFound("Transaction not found");
  const received = await funds.forOrder(order._id.toHexString());
  return {
    ...toDto(order),
    businessId: order.businessId,
    timeline: sortTimeline([
      ...orderEntries(order),
      ...received.map(depositEntry),
      ...received.flatMap(refundEntries),
    ]),
  };
}
