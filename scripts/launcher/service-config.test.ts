import { describe, expect, it } from "vitest";
import { launcherOptions } from "./options.ts";
import { planProcesses, SERVICES } from "./plan.ts";
import { prepareServices } from "./service-config.ts";

const SEED = `SU${"A".repeat(56)}`;
const infra = {
  natsUrl: "nats://127.0.0.1:4222",
  mongoUrl: "mongodb://127.0.0.1:27017/",
  natsSeeds: Object.fromEntries(SERVICES.map((s) => [s, SEED])),
};
const plan = (env: Record<string, string>) =>
  prepareServices(planProcesses(launcherOptions(env), infra), env);
const envOf = (specs: ReturnType<typeof plan>, service: string) =>
  specs.find((s) => s.service === service)?.env ?? {};

describe("each service's environment", () => {
  it("holds the launcher's own variables and this service's settings, no other service's", () => {
    const specs = plan({
      PATH: "/usr/bin",
      ADMIN_TOKEN: "an-operator-token-0123456789",
      KYC_PEPPER: "pepper",
      WEBHOOK_SECRET_KEY: "ab".repeat(32),
      HD_MNEMONIC: "test test test test test test test test test test test junk",
      GATEWAY_NATS_NKEY_SEED: SEED,
    });
    const secrets = ["ADMIN_TOKEN", "KYC_PEPPER", "WEBHOOK_SECRET_KEY", "HD_MNEMONIC"];
    const owner: Record<string, string> = {
      ADMIN_TOKEN: "gateway",
      KYC_PEPPER: "banking",
      WEBHOOK_SECRET_KEY: "webhook-dispatcher",
      HD_MNEMONIC: "chain-watcher",
    };
    for (const service of SERVICES) {
      const env = envOf(specs, service);
      expect(env.PATH, service).toBe("/usr/bin");
      expect(env.GATEWAY_NATS_NKEY_SEED, service).toBeUndefined();
      expect(
        secrets.filter((name) => env[name] !== undefined),
        service,
      ).toEqual(secrets.filter((name) => owner[name] === service));
    }
  });
});

describe("production mode", () => {
  it("refuses with one error naming every sandbox part of every service, before any starts", () => {
    let message = "";
    try {
      plan({ RAMP_SANDBOX: "false", ADMIN_TOKEN: "change-me-please-0123456789" });
    } catch (err) {
      message = String(err);
    }
    expect(message).toMatch(/no service was started/);
    const named = [
      "gateway ADMIN_TOKEN: is a published development value",
      "gateway CONSOLE_SECRET_KEY",
      "banking BANK_RAIL",
      "banking IDENTITY_PROVIDER",
      "banking KYC_PEPPER",
      "chain-watcher HD_MNEMONIC",
      ...["SOLANA", "TON", "ETHEREUM", "BASE", "BSC", "MONAD", "ARC"].map(
        (c) => `chain-watcher RPC_URL_${c}`,
      ),
      "chain-watcher SOL_USD_PRICE",
      "webhook-dispatcher WEBHOOK_SECRET_KEY",
    ];
    for (const part of named) expect(message).toContain(part);
  });

  it("names invalid values of several services in the same error", () => {
    const refusal = () => plan({ ADMIN_TOKEN: "short", WEBHOOK_RETRY_SCHEDULE: "soon" });
    expect(refusal).toThrow(/gateway ADMIN_TOKEN: ADMIN_TOKEN must be at least 16 characters/);
    expect(refusal).toThrow(/webhook-dispatcher WEBHOOK_RETRY_SCHEDULE: must be/);
  });

  it("accepts the sandbox as it is", () => {
    expect(plan({})).toHaveLength(SERVICES.length);
  });
});
