import { JetStreamApiError } from "@nats-io/jetstream";
import { TimeoutError } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { isTransientJetStreamError, retryJetStreamSetup } from "./jetstream-setup.ts";

const apiError = (err_code: number, code: number, description: string) =>
  new JetStreamApiError({ err_code, code, description });

/** A setup call failing with `errors` in turn, then answering "ok"; counts its calls. */
function failingThen(errors: unknown[]) {
  let calls = 0;
  return {
    calls: () => calls,
    call: async () => {
      const err = errors[calls++];
      if (err !== undefined) throw err;
      return "ok";
    },
  };
}

const fast = { firstDelayMs: 1, maxDelayMs: 2 };

describe("JetStream setup at boot", () => {
  it("tries again after timeouts and a cluster without a leader, then succeeds", async () => {
    const setup = failingThen([
      new TimeoutError(),
      apiError(10008, 503, "JetStream system temporarily unavailable"),
      apiError(10118, 500, "stream is offline"),
    ]);
    await expect(retryJetStreamSetup("streams", setup.call, fast)).resolves.toBe("ok");
    expect(setup.calls()).toBe(4);
  });

  it("fails at once on what waiting does not fix: a clashing configuration", async () => {
    const clash = apiError(10058, 400, "stream name already in use with a different configuration");
    const setup = failingThen([clash]);
    await expect(retryJetStreamSetup("streams", setup.call, fast)).rejects.toBe(clash);
    expect(setup.calls()).toBe(1);
    expect(isTransientJetStreamError(new Error("Permissions Violation for Publish"))).toBe(false);
  });

  it("gives up with the last error once its time is spent", async () => {
    const timeouts = Array.from({ length: 1_000 }, () => new TimeoutError());
    const setup = failingThen(timeouts);
    await expect(
      retryJetStreamSetup("streams", setup.call, { ...fast, budgetMs: 30 }),
    ).rejects.toBeInstanceOf(TimeoutError);
    expect(setup.calls()).toBeGreaterThan(1);
    expect(setup.calls()).toBeLessThan(1_000);
  });
});
