import { AppError, type DepositObserved, Rpc } from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import type { ObjectId } from "mongodb";
import { derivedId } from "../idempotency/once-per-key.ts";
import { baseDoc } from "../orders/new-order.ts";
import type { OrderDoc } from "../orders/order-doc.ts";
import { priceLanded, quoteOfframp } from "../pricing/quotes.ts";
import type { LifecycleDeps } from "./deps.ts";

/** One deposit, one order: the id is derived from the deposit so a redelivery finds the same order. */
export const orderIdForDeposit = (fundsId: string): ObjectId => derivedId(fundsId);

/**
 * The settlement stablecoin landing on a registered bank account's address is paid out to
 * that account as an OFF_RAMP order of the business that registered it first. Returns null when the
 * address pays no known account or the token is not the stablecoin (the caller records it).
 *
 * The token's facts ride in the event (chain-watcher described it as it recorded the transfer). Two
 * questions remain, each to the service that owns the answer: banking, which account the address
 * pays and who registered it first (chain-watcher only knows the address was allocated for one), and
 * pricing, that business's offramp rate now (a rate carried in the event would be the one at
 * observation, and a redelivery could price with a stale one).
 */
export async function openBankAccountOrder(
  deps: LifecycleDeps,
  ev: DepositObserved,
  fundsId: string,
  trace: TraceContext,
): Promise<OrderDoc | null> {
  const _id = orderIdForDeposit(fundsId);
  const existing = await deps.store.get(_id);
  if (existing) return existing;
  const { decimals, stablecoin, usdPrice } = ev.token;
  if (!stablecoin || usdPrice === null) return null;
  let account: Awaited<ReturnType<typeof callRpc<typeof Rpc.accountsGet>>>;
  try {
    account = await callRpc(deps.nc, Rpc.accountsGet, { address: ev.address }, trace);
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") return null;
    throw err;
  }
  const businessId = account.businessIds[0];
  if (!businessId) return null;
  const { offRampRate } = await callRpc(
    deps.nc,
    Rpc.ratesGet,
    { businessId, currency: account.currency },
    trace,
  );
  const rate = String(offRampRate.rate);
  // Priced again on what landed when the deposit is applied; a deposit worth less than the fee
  // still becomes an order, which that step then moves to ERROR rather than leaving it unrecorded.
  const priced = priceLanded(() =>
    quoteOfframp({ amount: ev.amount, rate, fee: "0", usdPrice, decimals }),
  ) ?? { amount: ev.amount, fiatAmount: "0.00", usdcAmount: "0" };
  const doc: OrderDoc = {
    ...baseDoc({ businessId, apiKeyId: null }, ev.chain, ev.mint, _id),
    transactionType: "OFF_RAMP",
    currency: account.currency,
    recipient: "",
    ...priced,
    rate,
    fee: "0",
    usdPrice,
    decimals,
    setupCostUsd: "0",
    address: ev.address,
    accountNumber: account.accountNumber,
    accountName: account.accountName,
    bank: account.bank,
    bankCode: account.bankCode,
    description: `Bank account deposit ${ev.txId}`,
  };
  await deps.store.insert(doc);
  deps.log.info({ orderId: _id.toHexString(), txId: ev.txId }, "offramp opened for a bank account deposit");
  return deps.store.get(_id);
}
