import {
  BaseConfig,
  envInt,
  envWebhookAllowPrivate,
  loadConfig,
  withWebhookAllowPrivateDefault,
} from "@ramp/runtime";
import { z } from "zod";

const decimal = (fallback: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .default(fallback);

export const OrdersConfig = BaseConfig.extend({
  /** Per-order USD value bounds (0.50 to 10,000 by default); outside → 400. */
  ORDER_MIN_USD: decimal("0.5"),
  ORDER_MAX_USD: decimal("10000"),
  ONRAMP_UNPAID_TTL_SECONDS: envInt(259_200),
  PAYMENT_TTL_SECONDS: envInt(259_200),
  PAYMENT_FEE_BPS: envInt(100),
  EXPIRY_SWEEP_MS: envInt(5_000),
  /** An order in PROCESSING (waiting on the payout or delivery) this long raises a `stuck` exception. */
  STUCK_AFTER_SECONDS: envInt(900),
  STUCK_SWEEP_MS: z.coerce.number().int().min(100).default(60_000),
  /** How long a quote's locked rate and amounts can be turned into an order. */
  QUOTE_TTL_SECONDS: envInt(60),
  VIRTUAL_ACCOUNT_HOLDER: z.string().default("RAMP CHECKOUT"),
  /**
   * Sandbox deposits are refused (503, Retry-After) while deposits already made wait longer than this
   * to be applied, so past capacity a deposit's webhook comes within a bound instead of behind an ever
   * longer queue. 0: never refused. A real deposit, seen on a chain or a rail, is never refused.
   */
  SANDBOX_DEPOSIT_MAX_LAG_MS: envInt(1_000),
  /** An order's webhookURL is checked when saved, with the same rule the dispatcher applies. */
  WEBHOOK_ALLOW_PRIVATE: envWebhookAllowPrivate,
}).transform(withWebhookAllowPrivateDefault);
export type OrdersConfig = z.infer<typeof OrdersConfig>;
export const loadOrdersConfig = (env: Record<string, string | undefined>) => loadConfig(OrdersConfig, env);
