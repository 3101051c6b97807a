import { describe, expect, it } from "vitest";
import { loadGatewayConfig } from "./config.ts";

const infra = { NATS_URL: "nats://x", MONGODB_URI: "mongodb://x", RAMP_SANDBOX: "false" };

describe("gateway config in production mode", () => {
  it("refuses the admin token published in docker-compose.yml", () => {
    expect(() => loadGatewayConfig({ ...infra, ADMIN_TOKEN: "change-me-please-0123456789" })).toThrow(
      /ADMIN_TOKEN: is a published development value/,
    );
  });

  it("starts with a token and a console key of the operator's own", () => {
    const config = loadGatewayConfig({
      ...infra,
      ADMIN_TOKEN: "0f5e2d9c8b7a6f5e4d3c2b1a",
      CONSOLE_SECRET_KEY: "0f".repeat(32),
    });
    expect(config.RAMP_SANDBOX).toBe(false);
  });

  it("refuses a console key left unset, or one that is not 32 bytes", () => {
    const own = { ...infra, ADMIN_TOKEN: "0f5e2d9c8b7a6f5e4d3c2b1a" };
    expect(() => loadGatewayConfig(own)).toThrow(/CONSOLE_SECRET_KEY: not set/);
    expect(() => loadGatewayConfig({ ...own, CONSOLE_SECRET_KEY: "short" })).toThrow(
      /CONSOLE_SECRET_KEY: must be 32 bytes/,
    );
  });
});
