import { z } from "zod";

export const CHAINS = ["SOLANA", "TON", "ETHEREUM", "BASE", "BSC", "MONAD", "ARC"] as const;
export const Chain = z.enum(CHAINS);
export type Chain = z.infer<typeof Chain>;

export const EVM_CHAINS = ["ETHEREUM", "BASE", "BSC", "MONAD", "ARC"] as const satisfies readonly Chain[];

export type ChainFamily = "evm" | "solana" | "ton";
export function chainFamily(chain: Chain): ChainFamily {
  if (chain === "SOLANA") return "solana";
  if (chain === "TON") return "ton";
  return "evm";
}

/** The stablecoin each chain settles in: USDC everywhere but TON, which settles in USDT. */
export function settlementSymbol(chain: Chain): "USDC" | "USDT" {
  return chain === "TON" ? "USDT" : "USDC";
}

export const CURRENCIES = ["NGN", "GHS", "TZS", "KES", "ZAR", "USD"] as const;
export const Currency = z.enum(CURRENCIES);
export type Currency = z.infer<typeof Currency>;

export const ORDER_STATUSES = ["INIT", "PROCESSING", "COMPLETED", "ERROR"] as const;
export const OrderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;

export const TRANSACTION_TYPES = ["ON_RAMP", "OFF_RAMP"] as const;
export const TransactionType = z.enum(TRANSACTION_TYPES);
export type TransactionType = z.infer<typeof TransactionType>;

export const RATE_TYPES = ["onRamp", "offRamp"] as const;
export const RateType = z.enum(RATE_TYPES);
export type RateType = z.infer<typeof RateType>;

export const PAYMENT_METHODS = ["TOKEN", "FIAT"] as const;
export const PaymentMethod = z.enum(PAYMENT_METHODS);
export type PaymentMethod = z.infer<typeof PaymentMethod>;

export const PAYMENT_STATUSES = ["AWAITING", "SUCCESSFUL", "EXPIRED"] as const;
export const PaymentStatus = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

export const WEBHOOK_TYPES = ["RAMP", "PAYMENT"] as const;
export const WebhookType = z.enum(WEBHOOK_TYPES);
export type WebhookType = z.infer<typeof WebhookType>;

export const COUNTRIES = ["NG", "GH", "KE", "TZ", "ZA"] as const;
export type Country = (typeof COUNTRIES)[number];

/** The currency a bank account of each supported country is paid out in. */
export const COUNTRY_CURRENCY: Record<Country, Currency> = {
  NG: "NGN",
  GH: "GHS",
  KE: "KES",
  TZ: "TZS",
  ZA: "ZAR",
};

// The console's people (DESIGN: operating it); here, with no heavier imports, so the web console can list them.
/** Platform operators: `admin` manages operators, `operator` runs the platform, `viewer` only reads. */
export const OperatorRole = z.enum(["admin", "operator", "viewer"]);
export type OperatorRole = z.infer<typeof OperatorRole>;

/** Members of one business: `owner` manages members and keys, `developer` works, `viewer` only reads. */
export const MemberRole = z.enum(["owner", "developer", "viewer"]);
export type MemberRole = z.infer<typeof MemberRole>;

export const PersonKind = z.enum(["operator", "member"]);
export type PersonKind = z.infer<typeof PersonKind>;

/** What an operator must look at (DESIGN: money operations). */
export const EXCEPTION_KINDS = [
  "refundable-funds",
  "payout-failed",
  "stuck",
  "webhook-endpoint-failing",
  "treasury-low",
] as const;
