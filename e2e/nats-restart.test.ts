// A NATS restart is routine (an upgrade, a node replaced): what the system is asked right after it
// must work as it did before, without waiting out a timeout on something the restart left stale.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ services: ["pricing", "gateway"] });
});
afterAll(async () => stack?.close());

describe("after a NATS restart", () => {
  it("the first market rate written at once is written, and so is the next", async () => {
    await stack.setRate("NGN", 1600, 1500);
    // Asked while the services are still reconnecting: the request used to be sent ahead of the reply
    // inbox's subscription, lose its answer and wait out the RPC timeout (503).
    await stack.restartNats();
    const write = await stack.admin("PUT", "/rates/NGN", { onRamp: 1650, offRamp: 1550 });
    expect(write.status, JSON.stringify(write.body)).toBe(200);
    const again = await stack.admin("PUT", "/rates/NGN", { onRamp: 1700, offRamp: 1600 });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const rate = await (await stack.db("pricing"))
      .collection("market_rates")
      .findOne({ _id: "NGN" } as never);
    expect(rate?.onRamp).toBe("1700");
  });
});
