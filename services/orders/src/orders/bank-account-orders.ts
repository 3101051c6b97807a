import { createHash } from "node:crypto";
import { AppError, type DepositObserved, Rpc } from "@ramp/contracts";
import { callRpc, type TraceContext } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import { priceLanded, quoteOfframp } from "../quotes/quotes.ts";
import { baseDoc } from "./create-orders.ts";
import type { LifecycleDeps } from "./lifecycle.ts";
import type { OrderDoc } from "./order-doc.ts";

/** One deposit, one order: the id is derived from the deposit so a redelivery finds the same order. */
export function orderIdForDeposit(fundsId: string): ObjectId {
  return new ObjectId(createHash("sha256").update(fundsId).digest().subarray(0, 12).toString("hex"));
}

/**
 * The settlement stablecoin landing on a registered bank account's address is paid out to
 * that account as an OFF_RAMP order of the business that registered it first. Returns null when the
 * address pays no known account or the token is not the stablecoin (the caller records it).
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
  let account: Awaited<ReturnType<typeof callRpc<typeof Rpc.accountsGet>>>;
  try {
    account = await callRpc(deps.nc, Rpc.accountsGet, { address: ev.address }, trace);
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") return null;
    throw err;
  }
  const businessId = account.businessIds[0];
  const token = await callRpc(deps.nc, Rpc.tokenInfo, { chain: ev.chain, mint: ev.mint }, trace);
  if (!businessId || !token.stablecoin) return null;
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
    quoteOfframp({ amount: ev.amount, rate, fee: "0", usdPrice: token.usdPrice, decimals: token.decimals }),
  ) ?? { amount: ev.amount, fiatAmount: "0.00", usdcAmount: "0" };
  const doc: OrderDoc = {
    ...baseDoc({ businessId, apiKeyId: null }, ev.chain, ev.mint, _id),
    transactionType: "OFF_RAMP",
    currency: account.currency,
    recipient: "",
    ...priced,
    rate,
    fee: "0",
    usdPrice: token.usdPrice,
    decimals: token.decimals,
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
