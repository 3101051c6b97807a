import type { PaymentDto, TransactionDto } from "@ramp/contracts";
import { ObjectId } from "mongodb";

/** A plausible completed onramp, shaped exactly like a real ramp delivery (spec §2.5). */
export function sampleTransaction(now = new Date()): TransactionDto {
  return {
    id: new ObjectId().toHexString(),
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
    createdAt: now.toISOString(),
    accountNumber: "9912345678",
    accountName: "SAMPLE BUSINESS(Pay NGN 16000)",
    bank: "Sandbox Bank",
    fee: 0,
    chain: "SOLANA",
  };
}

/** A plausible settled TOKEN payment (DESIGN §9 payment response, status SUCCESSFUL). */
export function samplePayment(now = new Date()): PaymentDto {
  const expires = new Date(now.getTime() + 72 * 3600 * 1000);
  return {
    id: new ObjectId().toHexString(),
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
