import { randomBytes } from "node:crypto";
import type { PaymentDto } from "./http/payments.ts";
import type { TransactionDto } from "./http/transactions.ts";

/** A fresh id in the shape of the service's ids (24 hex digits). */
const newId = () => randomBytes(12).toString("hex");

/**
 * A plausible completed onramp, shaped exactly like a real ramp delivery: the webhook test
 * send, benchmarks and tests build on it so no copy of the Transaction shape drifts from the schema.
 */
export function sampleTransaction(overrides: Partial<TransactionDto> = {}): TransactionDto {
  return {
    id: newId(),
    address: "",
    signature: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
    mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    currency: "NGN",
    amount: 10,
    usdcAmount: 10,
    fiatAmount: 16000,
    sender: "",
    recipient: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    rate: 1600,
    status: "COMPLETED",
    transactionType: "ON_RAMP",
    createdAt: new Date().toISOString(),
    accountNumber: "9912345678",
    accountName: "SAMPLE BUSINESS(Pay NGN 16000)",
    bank: "Sandbox Bank",
    fee: 0,
    chain: "SOLANA",
    userExternalId: "",
    ...overrides,
  };
}

/** A plausible settled TOKEN payment (the payment response of docs/architecture.md §5, status SUCCESSFUL). */
export function samplePayment(now = new Date()): PaymentDto {
  const expires = new Date(now.getTime() + 72 * 3600 * 1000);
  return {
    id: newId(),
    status: "SUCCESSFUL",
    method: "TOKEN",
    amount: 100,
    fee: 1,
    totalAmount: 101,
    currency: null,
    chain: "SOLANA",
    mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    reference: "sample",
    createdAt: now.toISOString(),
    expiresAt: expires.toISOString(),
    token: {
      address: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
      chain: "SOLANA",
      mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
      amount: 101,
    },
  };
}
