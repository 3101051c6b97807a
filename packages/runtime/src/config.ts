import { z } from "zod";

/**
 * A configuration a service refuses: `problems` are the offending variables, one `NAME: reason` each, and
 * `sandbox` says whether they are sandbox parts production mode refuses rather than invalid values.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(
    message: string,
    readonly problems: readonly string[] = [],
    readonly sandbox = false,
  ) {
    super(message);
  }
}

const INVALID = "invalid configuration:";
const SANDBOX_REFUSED = "RAMP_SANDBOX=false refuses sandbox parts and default secrets, but these are in use:";

/** One error naming every problem of several services, each line prefixed with its service. */
export function combinedConfigError(
  heading: string,
  byService: ReadonlyMap<string, ConfigError>,
): ConfigError {
  const section = (sandbox: boolean) =>
    [...byService].flatMap(([service, e]) =>
      e.sandbox === sandbox ? e.problems.map((p) => `    ${service} ${p}`) : [],
    );
  const invalid = section(false);
  const refused = section(true);
  const lines = [
    heading,
    ...(refused.length ? [`  ${SANDBOX_REFUSED}`, ...refused] : []),
    ...(invalid.length ? [`  ${INVALID}`, ...invalid] : []),
  ];
  return new ConfigError(lines.join("\n"), [...refused, ...invalid], invalid.length === 0);
}

/** The variable names a config schema reads, through the `.transform` pipes some schemas end in. */
export function configNames(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return configNames(schema.in as z.ZodType);
  throw new Error(`no object schema inside ${schema.constructor.name}`);
}

/**
 * Parses a service's environment once, failing fast with every offending variable named.
 * Tests pass an explicit env object instead of mutating process.env.
 */
export function loadConfig<S extends z.ZodType<BaseConfig>>(
  schema: S,
  env: Record<string, string | undefined>,
  sandboxPartsOf?: (config: z.infer<S>) => SandboxPart[],
): Readonly<z.infer<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`${INVALID}\n${problems.map((p) => `  ${p}`).join("\n")}`, problems);
  }
  if (sandboxPartsOf) refuseSandboxParts(parsed.data, sandboxPartsOf(parsed.data));
  return Object.freeze(parsed.data);
}

/** A sandbox adapter or a development secret a service would run with, named by the variable that picks it. */
export interface SandboxPart {
  name: string;
  reason: string;
}

/**
 * Production mode (RAMP_SANDBOX=false) must never run on a sandbox adapter or a published development
 * secret: either would look like it works while moving no real money or protecting nothing. Every
 * offending part is named at once, so an operator fixes them in one pass instead of one per restart.
 */
export function refuseSandboxParts(config: { RAMP_SANDBOX: boolean }, parts: readonly SandboxPart[]): void {
  if (config.RAMP_SANDBOX || parts.length === 0) return;
  const problems = parts.map((p) => `${p.name}: ${p.reason}`);
  throw new ConfigError(`${SANDBOX_REFUSED}\n${problems.map((p) => `  ${p}`).join("\n")}`, problems, true);
}

/**
 * The secret `name` as a sandbox part when it is unset or one of its published development values.
 * The value itself never appears in the reason: it may be a real secret mistyped.
 */
export function defaultSecretPart(
  name: string,
  value: string | undefined,
  publicValues: readonly string[],
): SandboxPart[] {
  if (value === undefined || value === "")
    return [{ name, reason: "not set, so its development default is used" }];
  if (publicValues.includes(value)) return [{ name, reason: "is a published development value" }];
  return [];
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
  /** This service's NATS user nkey seed; the server knows only its public key and what it may do. */
  NATS_NKEY_SEED: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/, "NATS_NKEY_SEED must be a NATS user nkey seed (SU…)")
    .optional(),
  /**
   * Every service's public nkey, `gateway=U…,orders=U…` (not secret): a consumer takes a stream message only
   * when the subject's publisher signed it (see message-signing.ts). Needed with NATS_NKEY_SEED.
   */
  NATS_PEER_KEYS: z
    .string()
    .regex(
      /^([a-z-]+=U[A-Z2-7]{55})(,[a-z-]+=U[A-Z2-7]{55})*$/,
      "NATS_PEER_KEYS must be service=public-nkey pairs, comma-separated (npm run nats:keys prints them)",
    )
    .optional(),
  MONGODB_URI: z.string().min(1, "MONGODB_URI is required"),
  /** Database name override; tests give each run its own. */
  MONGODB_DATABASE: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  HEALTH_PORT: envInt(0),
  RAMP_SANDBOX: envBool(true),
  /** Copies of every stream and KV bucket this service creates: 1 on a single server, 3 on a cluster. */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** OTLP/HTTP collector base URL (`/v1/traces` is appended); unset, no spans are made or sent. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .union([z.literal(""), z.url({ protocol: /^https?$/ })])
    .optional()
    .transform((v) => v || undefined),
  /** service.name of the spans; default the service's own name. */
  OTEL_SERVICE_NAME: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  /** Milliseconds spans wait in a batch before export. */
  OTEL_BSP_SCHEDULE_DELAY: envInt(5_000),
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
