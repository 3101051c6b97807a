import type { NatsConnection } from "@nats-io/transport-node";
import { badRequest, notFound, Rpc, unavailable } from "@ramp/contracts";
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
  /** How long deposits already made wait before this service applies them (its deposit consumers' lag). */
  depositsLagMs: () => number;
  /** Past it, a sandbox deposit is refused for now; 0: never. */
  maxLagMs: number;
}

/**
 * Past capacity, a deposit accepted now would only wait behind the others, its webhook later with every
 * one accepted: refusing it (503 with Retry-After, which the SDK and the gateway's other refusals use
 * too) keeps the wait of those accepted within a bound. Checked before anything is read, so a refusal
 * costs no database work.
 */
export function refuseWhileBehind({
  depositsLagMs,
  maxLagMs,
}: Pick<SandboxDeps, "depositsLagMs" | "maxLagMs">) {
  if (maxLagMs <= 0) return;
  const lag = depositsLagMs();
  if (lag > maxLagMs)
    throw unavailable(
      `Service Unavailable: deposits are being applied ${(lag / 1000).toFixed(1)} s after they are made, retry later`,
    );
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
  refuseWhileBehind(deps);
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
