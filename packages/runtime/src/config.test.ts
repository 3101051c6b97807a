import { describe, expect, it } from "vitest";
import { BaseConfig, ConfigError, defaultSecretPart, loadConfig, refuseSandboxParts } from "./config.ts";

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

describe("tracing variables", () => {
  const base = { NATS_URL: "nats://127.0.0.1:4222", MONGODB_URI: "mongodb://127.0.0.1:27017" };

  it("leave tracing off when unset or empty, and take a collector URL and service name", () => {
    expect(loadConfig(BaseConfig, base).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(
      loadConfig(BaseConfig, { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "" }).OTEL_EXPORTER_OTLP_ENDPOINT,
    ).toBeUndefined();
    const on = loadConfig(BaseConfig, {
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_SERVICE_NAME: "ramp-orders",
      OTEL_BSP_SCHEDULE_DELAY: "200",
    });
    expect(on).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_SERVICE_NAME: "ramp-orders",
      OTEL_BSP_SCHEDULE_DELAY: 200,
    });
  });

  it("refuse an endpoint that is not an http(s) URL, naming the variable", () => {
    expect(() => loadConfig(BaseConfig, { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });
});
