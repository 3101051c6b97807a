import type { NatsConnection } from "@nats-io/transport-node";
import { badRequest, notFound, Rpc } from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import { Decimal } from "decimal.js";
import type { z } from "zod";
import { scopedKey } from "../idempotency/once-per-key.ts";
import type { OrdersStore } from "../orders/orders-store.ts";
import type { Payments } from "../payments/payments.ts";

export interface SandboxDeps {
  nc: NatsConnection;
  store: OrdersStore;
  payments: Payments;
}

/**
 * Sandbox only: pays an order or a payment as its payer would, through the sandbox rail (fiat) or the
 * sandbox chain (tokens), so the order moves on as it would on a real deposit.
 */
export async function sandboxDeposit(
  deps: SandboxDeps,
  { businessId, kind, id, amount, ...k }: z.infer<typeof Rpc.sandboxDeposit.request>,
  trace: TraceContext,
) {
  const { nc, store, payments } = deps;
  // A retry names the same rail reference or chain transaction as the first attempt, which the
  // rail and the watcher store once: a repeat after a lost answer never pays twice.
  const idempotencyKey = scopedKey(businessId, k.idempotencyKey);
  if (kind === "payment") {
    const p = await payments.get(id, businessId);
    if (!p) throw notFound("Payment not found");
    if (p.status !== "AWAITING") throw badRequest(`Payment is ${p.status}, not awaiting funds`);
    if (p.method === "FIAT")
      return callRpc(
        nc,
        Rpc.sandboxFiatDeposit,
        { ref: id, fiatAmount: new Decimal(p.totalAmount).toFixed(2), idempotencyKey },
        trace,
      );
    return callRpc(
      nc,
      Rpc.sandboxChainDeposit,
      {
        chain: p.chain!,
        address: p.token!.address,
        mint: p.mint!,
        amount: p.totalAmount,
        idempotencyKey,
      },
      trace,
    );
  }
  const order = await store.getForBusiness(id, businessId);
  const expected = kind === "onramp" ? "ON_RAMP" : "OFF_RAMP";
  if (!order || order.transactionType !== expected) throw notFound("Transaction not found");
  if (order.status !== "INIT") throw badRequest(`Transaction is ${order.status}, not awaiting a deposit`);
  if (kind === "onramp") {
    return callRpc(
      nc,
      Rpc.sandboxFiatDeposit,
      { ref: id, ...(amount ? { fiatAmount: amount } : {}), idempotencyKey },
      trace,
    );
  }
  // The edge allows 18 decimals; the token itself may have fewer.
  if (amount !== undefined && new Decimal(amount).decimalPlaces() > order.decimals)
    throw badRequest(`amount must have at most ${order.decimals} decimal places`);
  return callRpc(
    nc,
    Rpc.sandboxChainDeposit,
    {
      chain: order.chain,
      address: order.address,
      mint: order.mint,
      amount: amount ?? order.amount,
      idempotencyKey,
    },
    trace,
  );
}
