import { type Chain, Events, type TransactionDto } from "@ramp/contracts";
import { ensureStreams, publish } from "@ramp/runtime";
import type { Harness } from "./harness.ts";

/** What orders announces when an offramp completes; only chain, address and mint matter to consolidation. */
function completed(id: string, chain: Chain, address: string, mint: string): TransactionDto {
  return {
    id,
    address,
    signature: "",
    mint,
    currency: "NGN",
    amount: 25,
    usdcAmount: 25,
    fiatAmount: 40_000,
    sender: "",
    recipient: "",
    rate: 1600,
    status: "COMPLETED",
    transactionType: "OFF_RAMP",
    createdAt: new Date().toISOString(),
    accountNumber: "0123456789",
    accountName: "Ada",
    bank: "Test Bank",
    fee: 0,
    chain,
    userExternalId: "",
  };
}

/** Announces the offramp `id` COMPLETED, `times` times under distinct message ids (a repeated event). */
export async function settleOfframp(
  h: Harness,
  order: { id: string; chain: Chain; address: string; mint: string },
  times = 1,
): Promise<void> {
  const { js } = await ensureStreams(h.nc);
  for (let i = 0; i < times; i++) {
    const ev = {
      businessId: "b1",
      apiKeyId: null,
      webhookURL: null,
      sequence: 2,
      order: completed(order.id, order.chain, order.address, order.mint),
    };
    await publish(js, Events.orderStatusChanged, ev, `order:${order.id}:COMPLETED:${i}`);
  }
}

/** Announces the token payment `id` SUCCESSFUL, paid to `address`, as orders does. */
export async function settlePayment(
  h: Harness,
  payment: { id: string; chain: Chain; address: string; mint: string },
): Promise<void> {
  const { js } = await ensureStreams(h.nc);
  const now = new Date().toISOString();
  const ev = {
    businessId: "b1",
    apiKeyId: "k1",
    payment: {
      id: payment.id,
      status: "SUCCESSFUL" as const,
      method: "TOKEN" as const,
      amount: 10,
      fee: 0.1,
      totalAmount: 10.1,
      currency: null,
      chain: payment.chain,
      mint: payment.mint,
      reference: null,
      createdAt: now,
      expiresAt: now,
      token: { address: payment.address, chain: payment.chain, mint: payment.mint, amount: 10.1 },
    },
  };
  await publish(js, Events.paymentSettled, ev, `payment:${payment.id}:SUCCESSFUL`);
}
