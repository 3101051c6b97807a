import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingHooks } from "./fault/audit.ts";
import { auditEvm, evmBaseline } from "./fault/evm-audit.ts";
import { runFault } from "./fault/fault-run.ts";
import { expectCleanRun, faultStackOptions } from "./fault/fault-stack.ts";
import { type EvmChain, startEvmChain } from "./support/evm-fixture.ts";
import { type ProcessStack, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN } from "./support/stack.ts";

/**
 * Nothing is lost or done twice: every service runs as a real process and is `kill -9`ed at random
 * every 3 s (NATS restarted once) while 30 mixed orders are paid — every third onramp and offramp on
 * a real EVM chain (anvil), whose settled deposit addresses are consolidated into the treasury
 * meanwhile — and an operator refunds money through the console: an ERROR offramp's tokens, surpluses
 * paid on chain to settled offramps, surplus fiat transfers to completed onramps. Afterwards every
 * order has finished, each deposit was credited once, each payout, on-chain send, sweep and refund
 * made once with the exact amount, every status change reached the integrator's webhook, and no
 * outbox holds an unsent message.
 */
const EVM_CHAIN = "ETHEREUM";
let evm: EvmChain;
let stack: ProcessStack;
beforeAll(async () => {
  evm = await startEvmChain({ blockEveryMs: 300 });
  const options = faultStackOptions();
  stack = await startProcessStack({
    ...options,
    serviceEnv: {
      ...options.serviceEnv,
      // Consolidation ticks with the poll: every settled address is swept while services die.
      "chain-watcher": {
        ...options.serviceEnv?.["chain-watcher"],
        ...evm.chainEnv([EVM_CHAIN]),
        POLL_INTERVAL_MS: "500",
        [`SWEEP_MIN_${EVM_CHAIN}`]: "0",
      },
    },
  });
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await evm?.stop();
});

describe("fault run: services killed and NATS restarted under load", () => {
  it("finishes every order once, with every webhook, refunds and sweeps once, and leaves no outbox behind", async () => {
    const before = await evmBaseline(evm);
    const result = await runFault({
      stack,
      adminToken: ADMIN_TOKEN,
      orders: 30,
      chaosMs: 45_000,
      killEveryMs: 3_000,
      natsRestarts: 1,
      settleMs: 120_000,
      evm: { chain: EVM_CHAIN, mint: evm.tokenAddress, pay: evm.pay },
      refunds: { balanceOf: evm.balanceOf },
    });
    const chain = await auditEvm(stack, evm, result.facts, before, result.refunds);
    console.log(chain.summary);
    expect(result.chaos.natsRestarts).toBe(1);
    expect(Object.values(result.chaos.kills).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5);
    expectCleanRun(result, 30);
    expect(chain.problems).toEqual([]);
    // Each kind of refund was asked for, and each was sent once (the audit above says how).
    const cases = new Set(result.refunds.map((r) => r.case));
    expect(cases).toEqual(new Set(["error-offramp", "token-surplus", "fiat-surplus"]));
    expect(result.refunds.every((r) => r.fundId !== null && r.failure === null)).toBe(true);
    // The orders' webhooks were audited (owed by their status changes), and every one arrived.
    const orders = result.facts.filter(
      (f) => f.order.plan.kind === "onramp" || f.order.plan.kind === "offramp",
    );
    expect(orders.reduce((n, f) => n + f.changes.length, 0)).toBeGreaterThan(0);
    expect(orders.flatMap(missingHooks)).toEqual([]);
  }, 260_000);
});
