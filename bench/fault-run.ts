/**
 * The full fault run: 200 mixed orders while a random service is `kill -9`ed every few seconds and
 * NATS restarts, then a table of what finished, was credited, paid out, sent and told — once each.
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
import { runFault } from "../e2e/fault/fault-run.ts";
import { startProcessStack } from "../e2e/support/process-stack.ts";
import { sandboxChainEnv } from "../e2e/support/tokens.ts";

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ADMIN_TOKEN = "fault-run-admin-token-0123456789";

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
  const stack = await startProcessStack({
    mongoUrl,
    natsBin: ensureNatsServer(TOOLS_DIR),
    dataDir,
    adminToken: ADMIN_TOKEN,
    logLevel: process.env.FAULT_LOG_LEVEL ?? "info",
    serviceEnv: {
      "chain-watcher": sandboxChainEnv,
      "webhook-dispatcher": { WEBHOOK_TIMEOUT_MS: "5000" },
    },
  });
  try {
    const result = await runFault({
      stack,
      adminToken: ADMIN_TOKEN,
      orders: num("FAULT_ORDERS", 200),
      chaosMs: num("FAULT_CHAOS_S", 150) * 1000,
      killEveryMs: num("FAULT_KILL_EVERY_S", 3) * 1000,
      natsRestarts: num("FAULT_NATS_RESTARTS", 1),
      settleMs: num("FAULT_SETTLE_S", 300) * 1000,
      ...(process.env.FAULT_SEED ? { seed: num("FAULT_SEED", 0) } : {}),
    });
    console.log(result.report);
    process.exitCode = result.problems.length > 0 ? 1 : 0;
  } finally {
    await stack.close();
    await stopDb();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
