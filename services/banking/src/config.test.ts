import { describe, expect, it } from "vitest";
import { kycPepper, loadBankingConfig } from "./config.ts";

const production = { NATS_URL: "nats://x", MONGODB_URI: "mongodb://x", RAMP_SANDBOX: "false" };
const pepper = "a6f0c1e9b5d24f7a8e3c2b1d0f9e8a7c";

describe("banking config in production mode", () => {
  it("refuses the defaults, naming the sandbox rail, the sandbox identity check and the default pepper", () => {
    expect(() => loadBankingConfig(production)).toThrow(
      /RAMP_SANDBOX=false[\s\S]*BANK_RAIL[\s\S]*IDENTITY_PROVIDER[\s\S]*KYC_PEPPER: not set/,
    );
  });

  it("drops the pepper from the list once a real one is set, but still refuses the sandbox adapters", () => {
    const load = () => loadBankingConfig({ ...production, KYC_PEPPER: pepper });
    expect(load).toThrow(/BANK_RAIL[\s\S]*IDENTITY_PROVIDER/);
    expect(load).toThrow(
      expect.objectContaining({
        message: expect.not.stringMatching(new RegExp(`KYC_PEPPER|${pepper.slice(0, 8)}`)),
      }),
    );
  });

  it("runs the sandbox on its defaults", () => {
    const config = loadBankingConfig({ ...production, RAMP_SANDBOX: "true" });
    expect(config.BANK_RAIL).toBe("sandbox");
    expect(kycPepper(config)).toBe("sandbox-pepper");
  });
});
