import { describe, expect, it } from "vitest";
import { kycPepper, loadBankingConfig } from "./config.ts";

const infra = { NATS_URL: "nats://x", MONGODB_URI: "mongodb://x" };

const errorOf = (env: Record<string, string>) => {
  try {
    loadBankingConfig({ ...infra, ...env });
  } catch (err) {
    return String(err);
  }
  return "";
};

describe("banking config in production mode", () => {
  it("refuses the defaults, naming the sandbox rail, the sandbox identity check and the default pepper", () => {
    const message = errorOf({ RAMP_SANDBOX: "false" });
    expect(message).toMatch(/BANK_RAIL/);
    expect(message).toMatch(/IDENTITY_PROVIDER/);
    expect(message).toMatch(/KYC_PEPPER/);
  });

  it("drops the pepper from the list once a real one is set, but still refuses the sandbox adapters", () => {
    const message = errorOf({ RAMP_SANDBOX: "false", KYC_PEPPER: "a6f0c1e9b5d24f7a8e3c2b1d0f9e8a7c" });
    expect(message).not.toMatch(/KYC_PEPPER/);
    expect(message).not.toContain("a6f0c1e9");
    expect(message).toMatch(/BANK_RAIL/);
    expect(message).toMatch(/IDENTITY_PROVIDER/);
  });

  it("runs the sandbox on its defaults", () => {
    const config = loadBankingConfig(infra);
    expect(config.BANK_RAIL).toBe("sandbox");
    expect(kycPepper(config)).toBe("sandbox-pepper");
  });
});
