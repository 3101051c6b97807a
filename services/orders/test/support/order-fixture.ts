import { baseDoc } from "../../src/orders/new-order.ts";
import type { OrderDoc } from "../../src/orders/order-doc.ts";

/** A priced offramp on BASE USDC as the store keeps it, for tests that write orders directly. */
export function orderFixture(overrides: Partial<OrderDoc> = {}, businessId = "b"): OrderDoc {
  return {
    ...baseDoc({ businessId, apiKeyId: null }, "BASE", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
    status: "PROCESSING",
    transactionType: "OFF_RAMP",
    currency: "NGN",
    recipient: "",
    amount: "1",
    fiatAmount: "1600.00",
    usdcAmount: "1",
    rate: "1600",
    fee: "0",
    usdPrice: "1",
    decimals: 6,
    setupCostUsd: "0",
    ...overrides,
  };
}
