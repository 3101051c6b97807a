import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFault } from "./fault/fault-run.ts";
import { expectCleanRun, faultStackOptions } from "./fault/fault-stack.ts";
import { type ProcessStack, SERVICE_NAMES, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN } from "./support/stack.ts";

/**
 * Two processes of every service on a three-node NATS cluster (streams and buckets with 3 replicas),
 * the driver taking turns over both gateways. While mixed orders are paid, one NATS node and at least
 * one process of every service are `kill -9`ed and started again; afterwards every order has finished
 * once, each deposit was credited once, each payout and on-chain send made once, and every status
 * change reached the integrator's webhook, verified. `CLUSTER_ORDERS` raises the order count (100+).
 */
const ORDERS = Number(process.env.CLUSTER_ORDERS ?? 40);

let stack: ProcessStack;
beforeAll(async () => {
  stack = await startProcessStack(faultStackOptions({ replicas: 2, natsNodes: 3 }));
}, 240_000);
afterAll(async () => stack?.close());

describe("two of every service on a three-node NATS cluster, with a node and replicas killed", () => {
  it(
    "finishes every order once, with every webhook",
    async () => {
      expect(stack.gatewayUrls).toHaveLength(2);
      for (const name of SERVICE_NAMES) expect(stack.replicasOf(name)).toHaveLength(2);
      const result = await runFault({
        stack,
        adminToken: ADMIN_TOKEN,
        orders: ORDERS,
        chaosMs: 45_000,
        killEveryMs: 3_000,
        natsRestarts: 1,
        settleMs: 120_000 + ORDERS * 500,
      });
      expect(result.chaos.natsRestarts).toBe(1);
      expectCleanRun(result, ORDERS, 1);
    },
    240_000 + ORDERS * 1_500,
  );
});
