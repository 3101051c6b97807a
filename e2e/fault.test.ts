import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runFault } from "./fault/fault-run.ts";
import { type ProcessStack, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN } from "./support/stack.ts";
import { sandboxChainEnv } from "./support/tokens.ts";

/**
 * Nothing is lost or done twice: every service runs as a real process and is `kill -9`ed at random
 * every 3 s (NATS restarted once) while 30 mixed orders are paid; afterwards every order has finished,
 * each deposit was credited once, each payout and on-chain send made once, every status change reached
 * the integrator's webhook, and no outbox holds an unsent message.
 */
let stack: ProcessStack;
beforeAll(async () => {
  stack = await startProcessStack({
    mongoUrl: inject("mongoUrl"),
    natsBin: inject("natsBin"),
    dataDir: inject("testDataDir"),
    adminToken: ADMIN_TOKEN,
    logLevel: process.env.TEST_LOG_LEVEL ?? "warn",
    serviceEnv: {
      "chain-watcher": sandboxChainEnv,
      // A dispatcher killed mid-attempt holds its lane until timeout + 30 s; keep that inside the run.
      "webhook-dispatcher": { WEBHOOK_TIMEOUT_MS: "5000" },
    },
  });
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
    console.log(result.report);
    expect(result.chaos.natsRestarts).toBe(1);
    expect(Object.values(result.chaos.kills).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5);
    expect(result.facts).toHaveLength(30);
    expect({
      stuck: result.counts.stuck,
      duplicated: result.counts.duplicated,
      lost: result.counts.lost,
    }).toEqual({ stuck: 0, duplicated: 0, lost: 0 });
    expect(result.problems).toEqual([]);
  }, 230_000);
});
