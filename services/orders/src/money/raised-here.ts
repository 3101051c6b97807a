import { FiatDepositReceived } from "@ramp/contracts";
import type { OrderDoc } from "../orders/order-doc.ts";
import type { FundsOutcome, LandedFunds } from "../orders/received-funds.ts";
import type { RaisedException } from "./exceptions-store.ts";

/** The exceptions orders sees itself, each keyed so a redelivered cause raises the same one. */

const WHY: Record<Exclude<FundsOutcome, "applied" | "refunded">, string> = {
  surplus: "arrived after another fund had already moved its order or payment",
  "wrong-token": "is another asset than its order's",
  underfunded: "did not cover its payment, or was worth less than its order's fee",
  late: "arrived after its order or payment had expired",
  unmatched: "names no order or payment",
};

/** The key of a received fund's refundable-funds exception: raised when it is not applied, cleared by its refund. */
export const refundableFundsKey = (fundId: string) => `refundable-funds:${fundId}`;

export function refundableFunds(
  landed: LandedFunds,
  outcome: Exclude<FundsOutcome, "applied">,
  orderId: string | null,
  businessId: string | null,
): RaisedException {
  const fiat = landed.chain ? null : FiatDepositReceived.safeParse(landed.detail);
  const why = outcome === "refunded" ? "was refunded" : WHY[outcome];
  return {
    key: refundableFundsKey(landed.id),
    kind: "refundable-funds",
    businessId,
    ...(orderId ? { orderId } : {}),
    fundId: landed.id,
    ...(landed.chain ? { chain: landed.chain.chain, token: landed.chain.mint } : {}),
    ...(fiat?.success ? { currency: fiat.data.currency } : {}),
    amount: landed.amount,
    since: new Date(),
    detail: `${outcome}: the fund ${why}`,
  };
}

/** The key of an offramp's payout-failed exception: raised when its payout fails, cleared by its refund. */
export const payoutFailedKey = (orderId: string) => `payout-failed:${orderId}`;

export function payoutFailed(order: OrderDoc): RaisedException {
  const orderId = order._id.toHexString();
  return {
    key: payoutFailedKey(orderId),
    kind: "payout-failed",
    businessId: order.businessId,
    orderId,
    chain: order.chain,
    token: order.mint,
    amount: order.amount,
    currency: order.currency,
    since: new Date(),
    detail: `payout failed: ${order.errorReason ?? "rail refused"}; the order's tokens can be refunded`,
  };
}
