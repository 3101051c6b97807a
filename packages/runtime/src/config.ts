import { z } from "zod";

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Parses a service's environment once, failing fast with every offending variable named.
 * Tests pass an explicit env object instead of mutating process.env.
 */
export function loadConfig<S extends z.ZodType<object>>(
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.infer<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  return Object.freeze(parsed.data);
}

export const envBool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(fallback ? "true" : "false")
    .transform((v) => v === "true" || v === "1");

export const envInt = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

/** Settings every service shares. */
export const BaseConfig = z.object({
  NATS_URL: z.string().min(1, "NATS_URL is required"),
  MONGODB_URI: z.string().min(1, "MONGODB_URI is required"),
  /** Database name override; tests give each run its own. */
  MONGODB_DATABASE: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  HEALTH_PORT: envInt(0),
  RAMP_SANDBOX: envBool(true),
});
export type BaseConfig = z.infer<typeof BaseConfig>;

/**
 * WEBHOOK_ALLOW_PRIVATE, for every service that checks webhook URLs. Unset, it follows RAMP_SANDBOX
 * (resolve with `withWebhookAllowPrivateDefault`): http and private targets in the sandbox only, so
 * production never delivers inside its own network unless an operator says so.
 */
export const envWebhookAllowPrivate = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === "true" || v === "1"));

export const withWebhookAllowPrivateDefault = <
  T extends { RAMP_SANDBOX: boolean; WEBHOOK_ALLOW_PRIVATE: boolean | undefined },
>(
  c: T,
): T & { WEBHOOK_ALLOW_PRIVATE: boolean } => ({
  ...c,
  WEBHOOK_ALLOW_PRIVATE: c.WEBHOOK_ALLOW_PRIVATE ?? c.RAMP_SANDBOX,
});
