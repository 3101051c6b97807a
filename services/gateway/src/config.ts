import {
  BaseConfig,
  defaultSecretPart,
  envBool,
  envInt,
  envSecretKey,
  loadConfig,
  parseSecretKey,
  type SandboxPart,
} from "@ramp/runtime";
import { z } from "zod";

/** Admin tokens published with the repository (docker-compose.yml's fallback): never valid in production. */
const PUBLIC_ADMIN_TOKENS = ["change-me-please-0123456789"];

export const GatewayConfig = BaseConfig.extend({
  PORT: envInt(8080),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must be at least 16 characters"),
  RATE_LIMIT_PER_SECOND: envInt(50),
  RATE_LIMIT_BURST: envInt(100),
  /**
   * Requests one gateway process works on at once, reads (GET) and writes apart; past them it answers
   * 503 with Retry-After instead of queueing (see shed.ts). 0 is unbounded.
   */
  MAX_IN_FLIGHT_READS: envInt(256),
  MAX_IN_FLIGHT_WRITES: envInt(64),
  /** How long an Idempotency-Key's response is kept and replayed. */
  IDEMPOTENCY_TTL_SECONDS: envInt(86_400),
  PUBLIC_BASE_URL: z.string().optional(),
  TRUST_PROXY: envBool(false),
  /** A console session unused this long ends (it ends 12 h after sign-in in any case). */
  CONSOLE_SESSION_IDLE_SECONDS: envInt(1800),
  /** The web console's build (index.html and assets/); default: packages/console/dist of this checkout. */
  CONSOLE_DIR: z.string().min(1).optional(),
  /** Encrypts the console's TOTP secrets at rest (AES-256-GCM): 32 bytes as 64 hex characters or base64. */
  CONSOLE_SECRET_KEY: envSecretKey,
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

/** Public by design: it only protects sandbox data, which is why it is refused outside the sandbox. */
const SANDBOX_CONSOLE_KEY = "73616e64626f782d636f6e736f6c652d7365637265742d6b65792d3030303031";

/** The gateway has no adapters; only its admin token and console key can be development defaults. */
export const gatewaySandboxParts = (config: GatewayConfig): SandboxPart[] => [
  ...defaultSecretPart("ADMIN_TOKEN", config.ADMIN_TOKEN, PUBLIC_ADMIN_TOKENS),
  ...defaultSecretPart("CONSOLE_SECRET_KEY", config.CONSOLE_SECRET_KEY, [SANDBOX_CONSOLE_KEY]),
];

/** The console's encryption key in effect; config validation already guaranteed it parses. */
export const consoleSecretKeyOf = (config: GatewayConfig): Buffer =>
  parseSecretKey(config.CONSOLE_SECRET_KEY || SANDBOX_CONSOLE_KEY);

export const loadGatewayConfig = (env: Record<string, string | undefined>) =>
  loadConfig(GatewayConfig, env, gatewaySandboxParts);
