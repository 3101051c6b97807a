// The launcher's own settings, read once from the environment.
import { randomBytes } from "node:crypto";
import type { LauncherOptions } from "./plan.ts";

function wholeNumber(
  env: Record<string, string | undefined>,
  name: string,
  max: number,
  fallback?: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") {
    if (fallback === undefined) throw new Error(`${name} is required`);
    return fallback;
  }
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new Error(`${name} must be a whole number from 1 to ${max}`);
  return n;
}

/** `--reset` is the one argument `npm start --` takes. */
function wantsReset(env: Record<string, string | undefined>, args: readonly string[]): boolean {
  const unknown = args.filter((a) => a !== "--reset");
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown.join(" ")} (npm start takes --reset)`);
  const flag = env.RAMP_RESET ?? "";
  if (!["", "0", "1", "true", "false"].includes(flag)) throw new Error("RAMP_RESET must be 1 or 0");
  return args.includes("--reset") || flag === "1" || flag === "true";
}

export function launcherOptions(
  env: Record<string, string | undefined>,
  args: readonly string[] = [],
): LauncherOptions {
  return {
    port: wholeNumber(env, "PORT", 65_535, 8080),
    replicas: wholeNumber(env, "RAMP_REPLICAS", 16, 1),
    healthPort: env.HEALTH_PORT ? wholeNumber(env, "HEALTH_PORT", 65_535) : undefined,
    // Checked by the gateway itself: a bad token stops the launch with the gateway's own message.
    adminToken: env.ADMIN_TOKEN ?? randomBytes(24).toString("hex"),
    sandbox: env.RAMP_SANDBOX ?? "true",
    logLevel: env.LOG_LEVEL ?? "info",
    reset: wantsReset(env, args),
  };
}
