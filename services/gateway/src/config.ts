import { BaseConfig, envBool, envInt, loadConfig } from "@ramp/runtime";
import { z } from "zod";

export const GatewayConfig = BaseConfig.extend({
  PORT: envInt(8080),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must be at least 16 characters"),
  RATE_LIMIT_PER_SECOND: envInt(50),
  RATE_LIMIT_BURST: envInt(100),
  API_KEY_CACHE_SECONDS: envInt(30),
  /** How long an Idempotency-Key's response is kept and replayed. */
  IDEMPOTENCY_TTL_SECONDS: envInt(86_400),
  PUBLIC_BASE_URL: z.string().optional(),
  TRUST_PROXY: envBool(false),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

export const loadGatewayConfig = (env: Record<string, string | undefined>) => loadConfig(GatewayConfig, env);
