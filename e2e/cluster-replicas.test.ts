import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvm, evmBaseline } from "./fault/evm-audit.ts";
import { runFault } from "./fault/fault-run.ts";
import { expectCleanRun, faultStackOptions } from "./fault/fault-stack.ts";
import { type EvmChain, startEvmChain } from "./support/evm-fixture.ts";
import { type ProcessStack, SERVICE_NAMES, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN } from "./support/stack.ts";
import { sandboxChainEnv } from "./support/tokens.ts";

/**
 * Two processes of every service on a three-node NATS cluster (streams and buckets with 3 replicas),
 * the driver taking turns over both gateways. While mixed orders are paid — onramps, offramps and
 * payments on the sandbox rails, and every third onramp and offramp on a real EVM chain (anvil): the
 * treasury's sends and the payer's deposits are real transactions seen by both chain-watchers — one
 * NATS node and at least one process of every service are `kill -9`ed and started again. Afterwards
 * every order has finished once, each deposit was credited once, each payout and on-chain send made
 * once (the chain's balances and nonces say so), and every status change reached the integrator's
 * webhook, verified. `CLUSTER_ORDERS` sets the order count (default 100).
 */
const ORDERS = Number(process.env.CLUSTER_ORDERS ?? 100);
const EVM_CHAIN = "ETHEREUM";

let evm: EvmChain;
let stack: ProcessStack;
beforeAll(async () => {
  // Enough for every on-chain onramp (at most 40 tokens each) and offramp deposit, with room.
  const tokens = String(Math.max(1_000, ORDERS * 20));
  evm = await startEvmChain({ payerTokens: tokens, treasuryTokens: tokens, blockEveryMs: 300 });
  const options = faultStackOptions({ replicas: 2, natsNodes: 3 });
  stack = await startProcessStack({
    ...options,
    serviceEnv: {
      ...options.serviceEnv,
      "chain-watcher": { ...sandboxChainEnv, ...evm.chainEnv([EVM_CHAIN]), POLL_INTERVAL_MS: "500" },
    },
  });
}, 240_000);
afterAll(async () => {
  await stack?.close();
  await evm?.stop();
});

describe("two of every service on a three-node NATS cluster, with a node and replicas killed", () => {
  it(
    "finishes every order once, with every webhook, and every on-chain send once",
    async () => {
      expect(stack.gatewayUrls).toHaveLength(2);
      for (const name of SERVICE_NAMES) expect(stack.replicasOf(name)).toHaveLength(2);
      const before = await evmBaseline(evm);
      const result = await runFault({
        stack,
        adminToken: ADMIN_TOKEN,
        orders: ORDERS,
        chaosMs: 45_000,
        killEveryMs: 3_000,
        natsRestarts: 1,
        settleMs: 120_000 + ORDERS * 500,
        evm: { chain: EVM_CHAIN, mint: evm.tokenAddress, pay: evm.pay },
      });
      const chain = await auditEvm(stack, evm, result.facts, before);
      // The run's duration is in the fault report; a line shaped "N orders in X s" reads like a test runner's closing line.
      console.log(chain.summary);
      expect(result.chaos.natsRestarts).toBe(1);
      expectCleanRun(result, ORDERS, 1);
      const onChain = result.facts.filter((f) => f.order.plan.onChain);
      expect(onChain.filter((f) => f.order.plan.kind === "onramp").length).toBeGreaterThan(0);
      expect(onChain.filter((f) => f.order.plan.kind === "offramp").length).toBeGreaterThan(0);
      expect(chain.problems).toEqual([]);
    },
    300_000 + ORDERS * 1_500,
  );
});
