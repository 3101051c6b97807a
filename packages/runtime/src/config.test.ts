import { describe, expect, it } from "vitest";
import { ConfigError, defaultSecretPart, refuseSandboxParts } from "./config.ts";

describe("refuseSandboxParts", () => {
  const parts = [
    { name: "BANK_RAIL", reason: "sandbox rail" },
    { name: "KYC_PEPPER", reason: "default" },
  ];

  it("names every part at once in production mode", () => {
    let err: unknown;
    try {
      refuseSandboxParts({ RAMP_SANDBOX: false }, parts);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/RAMP_SANDBOX=false/);
    expect(String(err)).toMatch(/BANK_RAIL: sandbox rail/);
    expect(String(err)).toMatch(/KYC_PEPPER: default/);
  });

  it("lets the sandbox run on sandbox parts, and production run without any", () => {
    expect(() => refuseSandboxParts({ RAMP_SANDBOX: true }, parts)).not.toThrow();
    expect(() => refuseSandboxParts({ RAMP_SANDBOX: false }, [])).not.toThrow();
  });
});

describe("defaultSecretPart", () => {
  it("flags an unset or published secret without echoing it", () => {
    expect(defaultSecretPart("S", undefined, ["dev"])).toHaveLength(1);
    expect(defaultSecretPart("S", "", ["dev"])).toHaveLength(1);
    const published = defaultSecretPart("S", "dev", ["dev"]);
    expect(published).toHaveLength(1);
    expect(JSON.stringify(published)).not.toContain('"dev"');
    expect(defaultSecretPart("S", "a-real-secret", ["dev"])).toEqual([]);
  });
});
