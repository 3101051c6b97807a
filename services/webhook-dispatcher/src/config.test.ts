import { describe, expect, it } from "vitest";
import { loadWebhookDispatcherConfig, parseRetrySchedule, secretKeyOf } from "./config.ts";

const base = { NATS_URL: "nats://x", MONGODB_URI: "mongodb://x" };

describe("retry schedule", () => {
  it("parses comma-separated seconds, spaces allowed", () => {
    expect(parseRetrySchedule("0, 5,300")).toEqual([0, 5, 300]);
    expect(parseRetrySchedule("0.5")).toEqual([0.5]);
  });

  it("rejects anything that is not a list of non-negative numbers", () => {
    for (const bad of ["", "1,,2", "-1", "a,b", "5s"]) expect(() => parseRetrySchedule(bad)).toThrow();
  });

  it("defaults to the documented schedule: eight attempts", () => {
    const c = loadWebhookDispatcherConfig(base);
    expect(c.WEBHOOK_RETRY_SCHEDULE).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(c.WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(c.WEBHOOK_HEADER_PREFIX).toBe("X-SVC");
    expect(c.WEBHOOK_TIMEOUT_MS).toBe(15_000);
  });

  it("allows private webhook targets by default only in the sandbox", () => {
    const key = "11".repeat(32);
    const prod = { ...base, RAMP_SANDBOX: "false", WEBHOOK_SECRET_KEY: key };
    expect(loadWebhookDispatcherConfig(prod).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(
      loadWebhookDispatcherConfig({ ...prod, WEBHOOK_ALLOW_PRIVATE: "true" }).WEBHOOK_ALLOW_PRIVATE,
    ).toBe(true);
    expect(
      loadWebhookDispatcherConfig({ ...base, WEBHOOK_ALLOW_PRIVATE: "false" }).WEBHOOK_ALLOW_PRIVATE,
    ).toBe(false);
  });

  it("fails fast on a bad schedule", () => {
    expect(() => loadWebhookDispatcherConfig({ ...base, WEBHOOK_RETRY_SCHEDULE: "0,x" })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE/,
    );
  });
});

describe("secret encryption key", () => {
  it("refuses a key that is not 32 bytes, naming the setting", () => {
    expect(() => loadWebhookDispatcherConfig({ ...base, WEBHOOK_SECRET_KEY: "abcd" })).toThrow(
      /WEBHOOK_SECRET_KEY: must be 32 bytes/,
    );
  });

  it("is refused unset or at its sandbox value in production mode, defaulted in the sandbox", () => {
    expect(() => loadWebhookDispatcherConfig({ ...base, RAMP_SANDBOX: "false" })).toThrow(
      /RAMP_SANDBOX=false[\s\S]*WEBHOOK_SECRET_KEY: not set/,
    );
    const sandboxKey = secretKeyOf(loadWebhookDispatcherConfig(base)).toString("hex");
    expect(() =>
      loadWebhookDispatcherConfig({ ...base, RAMP_SANDBOX: "false", WEBHOOK_SECRET_KEY: sandboxKey }),
    ).toThrow(/WEBHOOK_SECRET_KEY: is a published development value/);
    expect(secretKeyOf(loadWebhookDispatcherConfig(base))).toHaveLength(32);
    const key = "cd".repeat(32);
    const prod = loadWebhookDispatcherConfig({ ...base, RAMP_SANDBOX: "false", WEBHOOK_SECRET_KEY: key });
    expect(secretKeyOf(prod).toString("hex")).toBe(key);
  });

  it("never echoes a malformed key in the error", () => {
    const bad = "not-a-valid-key-value";
    expect(() => loadWebhookDispatcherConfig({ ...base, WEBHOOK_SECRET_KEY: bad })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(bad) }),
    );
  });
});
