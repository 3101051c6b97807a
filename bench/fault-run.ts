/**
 * The full fault run: 200 mixed orders while a random service is `kill -9`ed every few seconds and
 * NATS restarts, then a table of what finished, was credited, paid out, sent and told — once each.
 * Every third onramp and offramp runs on a real EVM chain (anvil), whose settled deposit addresses are
 * consolidated into the treasury meanwhile, and an operator refunds an ERROR offramp's tokens and the
 * surpluses paid on chain and by bank; the chain itself is then audited (`FAULT_EVM=0` leaves it out).
 * Exits 1 when anything is stuck, duplicated, lost, wrong or left in an outbox.
 *
 *   pnpm exec tsx bench/fault-run.ts                       (from the repo root)
 *   FAULT_ORDERS=500 FAULT_CHAOS_S=300 FAULT_KILL_EVERY_S=2 FAULT_SEED=42 pnpm exec tsx bench/fault-run.ts
 *
 * MONGODB_URI is honoured; otherwise a local mongod (or FerretDB) is started. NATS is always a local
 * nats-server: the run kills and restarts it. Per-process logs stay in the printed folder.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { DATA_DIR, ensureNatsServer, markInUse, startLocalDatabase, TOOLS_DIR } from "@ramp/devinfra";
import { auditEvm, evmBaseline } from "../e2e/fault/evm-audit.ts";
import { runFault } from "../e2e/fault/fault-run.ts";
import { type EvmChain, startEvmChain } from "../e2e/support/evm-fixture.ts";
import { type ProcessStack, startProcessStack } from "../e2e/support/process-stack.ts";
import { sandboxChainEnv } from "../e2e/support/tokens.ts";
// The refunds read and publish "as" orders, with its NATS identity and signature, as the tests do.
import "../e2e/support/service-connections.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ADMIN_TOKEN = "fault-run-admin-token-0123456789";
const EVM_CHAIN = "ETHEREUM";

async function main() {
  mkdirSync(DATA_DIR, { recursive: true });
  const dataDir = mkdtempSync(join(DATA_DIR, "fault-"));
  markInUse(dataDir, [process.pid]);
  let mongoUrl = process.env.MONGODB_URI ?? "";
  let stopDb: () => Promise<void> = async () => undefined;
  if (!mongoUrl) {
    const db = await startLocalDatabase(dataDir);
    mongoUrl = db.url;
    stopDb = db.stop;
  }
  const evm: EvmChain | undefined =
    process.env.FAULT_EVM === "0" ? undefined : await startEvmChain({ blockEveryMs: 300 });
  let stack: ProcessStack | undefined;
  try {
    stack = await startProcessStack({
      mongoUrl,
      natsBin: ensureNatsServer(TOOLS_DIR),
      dataDir,
      adminToken: ADMIN_TOKEN,
      logLevel: process.env.FAULT_LOG_LEVEL ?? "info",
      serviceEnv: {
        // Consolidation ticks with the poll: every settled address is swept while services die.
        "chain-watcher": evm
          ? {
              ...sandboxChainEnv,
              ...evm.chainEnv([EVM_CHAIN]),
              POLL_INTERVAL_MS: "500",
              [`SWEEP_MIN_${EVM_CHAIN}`]: "0",
            }
          : sandboxChainEnv,
        "webhook-dispatcher": { WEBHOOK_TIMEOUT_MS: "5000" },
      },
    });
    const before = evm ? await evmBaseline(evm) : undefined;
    const result = await runFault({
      stack,
      adminToken: ADMIN_TOKEN,
      orders: num("FAULT_ORDERS", 200),
      chaosMs: num("FAULT_CHAOS_S", 150) * 1000,
      killEveryMs: num("FAULT_KILL_EVERY_S", 3) * 1000,
      natsRestarts: num("FAULT_NATS_RESTARTS", 1),
      settleMs: num("FAULT_SETTLE_S", 300) * 1000,
      ...(process.env.FAULT_SEED ? { seed: num("FAULT_SEED", 0) } : {}),
      ...(evm
        ? {
            evm: { chain: EVM_CHAIN, mint: evm.tokenAddress, pay: evm.pay },
            refunds: { balanceOf: evm.balanceOf },
          }
        : {}),
    });
    console.log(result.report);
    const chain =
      evm && before ? await auditEvm(stack, evm, result.facts, before, result.refunds) : undefined;
    if (chain) {
      console.log(chain.summary);
      for (const p of chain.problems) console.log(`${p.kind}: ${p.orderId ?? "-"}: ${p.what}`);
    }
    process.exitCode = result.problems.length > 0 || (chain?.problems.length ?? 0) > 0 ? 1 : 0;
  } finally {
    // Also when a start failed: nothing this run started outlives it.
    await stack?.close();
    await evm?.stop();
    await stopDb();
  }
}

/** How long the process may outlive its own cleanup before it names what holds it and exits. */
const EXIT_GRACE_MS = 15_000;

main().then(
  () => {
    // A run stops by itself. Once everything it started is stopped, whatever still holds the event loop
    // (a client that did not close, a timer of a library) is a leak to name, not a reason to hang.
    setTimeout(() => {
      const held = process.getActiveResourcesInfo().join(", ");
      console.error(`still running ${EXIT_GRACE_MS / 1000} s after cleanup, held by: ${held}`);
      process.exit(process.exitCode ?? 0);
    }, EXIT_GRACE_MS).unref();
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
