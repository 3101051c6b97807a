import {
  BaseConfig,
  defaultSecretPart,
  envInt,
  envSecretKey,
  envWebhookAllowPrivate,
  loadConfig,
  parseSecretKey,
  type SandboxPart,
  withWebhookAllowPrivateDefault,
} from "@ramp/runtime";
import { z } from "zod";

/** Default retry schedule (docs/architecture.md §6): immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE = "0,5,300,1800,7200,18000,36000,36000";

/**
 * Seconds to wait before each attempt: entry 0 is the delay before the first attempt, entry i the
 * pause after attempt i fails. The length is therefore the total number of attempts.
 */
export function parseRetrySchedule(raw: string): number[] {
  const parts = raw.split(",").map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new Error("must be a comma-separated list of non-negative numbers of seconds");
  }
  return parts.map(Number);
}

/** Public by design: it only protects sandbox data, which is why it is refused outside the sandbox. */
const SANDBOX_SECRET_KEY = "73616e64626f782d7765626b6f6f6b2d7365637265742d6b65792d3030303031";

const RetrySchedule = z
  .string()
  .default(DEFAULT_RETRY_SCHEDULE)
  .transform((raw, ctx) => {
    try {
      return parseRetrySchedule(raw);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
      return z.NEVER;
    }
  });

export const WebhookDispatcherConfig = BaseConfig.extend({
  WEBHOOK_SECRET_KEY: envSecretKey,
  WEBHOOK_RETRY_SCHEDULE: RetrySchedule,
  WEBHOOK_ALLOW_PRIVATE: envWebhookAllowPrivate,
  WEBHOOK_HEADER_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, "must be a header-name prefix such as X-SVC")
    .default("X-SVC"),
  WEBHOOK_TIMEOUT_MS: envInt(15_000),
  /** Attempts in flight per instance. */
  WEBHOOK_CONCURRENCY: envInt(128),
  /** Attempts in flight per instance to one endpoint, so a slow receiver only occupies its own slots. */
  WEBHOOK_ENDPOINT_CONCURRENCY: envInt(16),
  /**
   * A URL that has failed every attempt this long is paused: its deliveries wait and a
   * `webhook-endpoint-failing` exception opens, until the URL is saved again or the exception resolved.
   */
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().default(72),
  /** How often a delivery waiting on a paused URL looks again (so at most this long after a resume). */
  WEBHOOK_PAUSED_RECHECK_MS: z.coerce.number().int().min(100).default(60_000),
}).transform(withWebhookAllowPrivateDefault);
export type WebhookDispatcherConfig = z.infer<typeof WebhookDispatcherConfig>;

/** The dispatcher has no adapters; only its encryption key can be a development default. */
export const webhookDispatcherSandboxParts = (config: WebhookDispatcherConfig): SandboxPart[] =>
  defaultSecretPart("WEBHOOK_SECRET_KEY", config.WEBHOOK_SECRET_KEY, [SANDBOX_SECRET_KEY]);

export const loadWebhookDispatcherConfig = (env: Record<string, string | undefined>) =>
  loadConfig(WebhookDispatcherConfig, env, webhookDispatcherSandboxParts);

/** The encryption key in effect; config validation already guaranteed it parses. */
export function secretKeyOf(config: WebhookDispatcherConfig): Buffer {
  return parseSecretKey(config.WEBHOOK_SECRET_KEY || SANDBOX_SECRET_KEY);
}
