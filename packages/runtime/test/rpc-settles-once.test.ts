import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { callRpc, createLogger, serveRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ratesAnswer } from "./support/rates-answer.ts";

/**
 * Every NATS request settles its promise once. @nats-io/nats-core 3.4.0 rejected each answered
 * request's promise a second time, with an error built (stack trace and all) for nothing; the patch in
 * patches/ stops that (docs/dependencies.md). A timeout and a missing responder still fail the call.
 */
const log = createLogger("rpc-settles-once-test", "silent");
let nats: TestNats;
let gatewayNc: NatsConnection;
let pricingNc: NatsConnection;
let serving: { stop(): Promise<void> } | undefined;
let delayMs = 0;

const ask = (timeoutMs?: number) =>
  callRpc(
    gatewayNc,
    Rpc.ratesGet,
    { businessId: "650000000000000000000001", currency: "NGN" },
    undefined,
    timeoutMs,
  );

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  gatewayNc = await nats.connectAs("gateway");
  pricingNc = await nats.connectAs("pricing");
  serving = serveRpc(pricingNc, Rpc.ratesGet, "pricing", log, async () => {
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    return ratesAnswer(1600);
  });
});
afterAll(async () => {
  await serving?.stop();
  await gatewayNc?.close();
  await pricingNc?.close();
  await nats?.stop();
});

/**
 * Promises rejected after they had settled while `work` ran: each such rejection is an error built and
 * thrown away (Node still reports them, though the event is deprecated).
 */
async function settledTwice(work: () => Promise<unknown>): Promise<number> {
  let twice = 0;
  const count = (type: "resolve" | "reject") => {
    if (type === "reject") twice++;
  };
  process.on("multipleResolves", count);
  try {
    await work();
    // The second settlement, if any, follows the answer within the same turn; give it one more.
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off("multipleResolves", count);
  }
  return twice;
}

describe("a NATS request settles once", () => {
  it("answered requests are never rejected afterwards", async () => {
    const twice = await settledTwice(async () => {
      for (let i = 0; i < 50; i++) expect((await ask()).onRampRate.rate).toBe(1600);
      await Promise.all(Array.from({ length: 50 }, () => ask()));
    });
    expect(twice).toBe(0);
  });

  it("a request not answered in time still fails as unavailable, and the next one is answered", async () => {
    delayMs = 400;
    await expect(ask(100)).rejects.toMatchObject({ code: "UNAVAILABLE" });
    delayMs = 0;
    expect((await ask()).onRampRate.rate).toBe(1600);
  });

  it("a subject nobody serves still fails as unavailable", async () => {
    await serving?.stop();
    serving = undefined;
    await expect(ask()).rejects.toMatchObject({ code: "UNAVAILABLE" });
  });
});
