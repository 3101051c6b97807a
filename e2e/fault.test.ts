import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingHooks } from "./fault/audit.ts";
import { runFault } from "./fault/fault-run.ts";
import { expectCleanRun, faultStackOptions } from "./fault/fault-stack.ts";
import { type ProcessStack, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN } from "./support/stack.ts";

/**
 * Nothing is lost or done twice: every service runs as a real process and is `kill -9`ed at random
 * every 3 s (NATS restarted once) while 30 mixed orders are paid; afterwards every order has finished,
 * each deposit was credited once, each payout and on-chain send made once, every status change reached
 * the integrator's webhook, and no outbox holds an unsent message.
 */
let stack: ProcessStack;
beforeAll(async () => {
  stack = await startProcessStack(faultStackOptions());
}, 180_000);
afterAll(async () => stack?.close());

describe("fault run: services killed and NATS restarted under load", () => {
  it("finishes every order once, with every webhook, and leaves no outbox behind", async () => {
    const result = await runFault({
      stack,
      adminToken: ADMIN_TOKEN,
      orders: 30,
      chaosMs: 45_000,
      killEveryMs: 3_000,
      natsRestarts: 1,
      settleMs: 120_000,
    });
    expect(result.chaos.natsRestarts).toBe(1);
    expect(Object.values(result.chaos.kills).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5);
    expectCleanRun(result, 30);
    // The orders' webhooks were audited (owed by their status changes), and every one arrived.
    const orders = result.facts.filter(
      (f) => f.order.plan.kind === "onramp" || f.order.plan.kind === "offramp",
    );
    expect(orders.reduce((n, f) => n + f.changes.length, 0)).toBeGreaterThan(0);
    expect(orders.flatMap(missingHooks)).toEqual([]);
  }, 230_000);
});
