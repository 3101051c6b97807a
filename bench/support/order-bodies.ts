import { BASE_USDC, ETH_USDC, EVM_RECIPIENT } from "../../e2e/support/tokens.ts";
import { SANDBOX_OFFRAMP } from "../../scripts/launcher/sandbox-example.ts";

export type OrderKind = "offramp" | "onramp";

/** The bodies the order benchmarks send to `POST /pub/v2/<kind>`: sandbox chains, NGN, 5 tokens. */
export const ORDER_BODIES: Record<OrderKind, Record<string, unknown>> = {
  offramp: {
    accountNumber: "0123456789",
    bankCode: "000013",
    currency: "NGN",
    chain: "BASE",
    mint: BASE_USDC,
    amount: 5,
  },
  onramp: { currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT, amount: 5 },
};

/** The offramp `npm start`'s banner prints (its sandbox chains as configured), `description` set. */
export const npmStartBody = (description: string) => ({ ...SANDBOX_OFFRAMP, description });
