import { type Chain, normalizeAddress } from "@ramp/contracts";
import { ObjectId } from "mongodb";
import type { Pricing } from "../pricing/price-order.ts";
import type { OrderDoc } from "./order-doc.ts";

/** The order both creation paths (an API request, a bank-account deposit) start from: unpriced, INIT. */
export function baseDoc(
  caller: { businessId: string; apiKeyId: string | null },
  chain: Chain,
  mint: string,
  id: ObjectId = new ObjectId(),
): Omit<OrderDoc, "transactionType" | "currency" | "recipient" | keyof Pricing> {
  return {
    _id: id,
    businessId: caller.businessId,
    apiKeyId: caller.apiKeyId,
    status: "INIT",
    sequence: 0,
    chain,
    mint,
    mintKey: normalizeAddress(chain, mint),
    address: "",
    signature: "",
    sender: "",
    accountNumber: "",
    accountName: "",
    bank: "",
    bankCode: "",
    webhookURL: null,
    userExternalId: null,
    userId: null,
    description: null,
    errorReason: null,
    createdAt: new Date(),
    expiresAt: null,
    outbox: [],
  };
}
