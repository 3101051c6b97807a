import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { createLogger, serveRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dependencyStates } from "../src/readiness.ts";

/** The gateway's /readyz view of the services it calls, on a real NATS with each side's own credentials. */
const log = createLogger("readiness-test", "silent");
let nats: TestNats;
let gatewayNc: NatsConnection;
let pricingNc: NatsConnection;

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  gatewayNc = await nats.connectAs("gateway");
  pricingNc = await nats.connectAs("pricing");
});
afterAll(async () => {
  await gatewayNc?.close();
  await pricingNc?.close();
  await nats?.stop();
});

describe("the gateway's readiness", () => {
  it("names each service it calls that has no responder, and the ones that answer, without running a handler", async () => {
    expect(await dependencyStates(gatewayNc)).toEqual({
      pricing: "no responders",
      banking: "no responders",
      orders: "no responders",
      "chain-watcher": "no responders",
      "webhook-dispatcher": "no responders",
    });
    let handled = 0;
    const pricing = serveRpc(pricingNc, Rpc.ratesGet, "pricing", log, async () => {
      handled++;
      throw new Error("a probe must not reach the handler");
    });
    await pricingNc.flush();
    try {
      const states = await dependencyStates(gatewayNc);
      expect(states.pricing).toBe("ready");
      expect(states.orders).toBe("no responders");
      expect(handled).toBe(0);
    } finally {
      await pricing.stop();
    }
  });
});
