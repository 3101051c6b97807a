/**
 * Where order creation spends its CPU: every service as its own process (as deployed), the ones in
 * BENCH_PROFILE (default: gateway, orders, chain-watcher, banking, pricing) under `node --cpu-prof`.
 * BENCH_CONCURRENCY clients (default 32) alternate `POST /pub/v2/offramp` and `/onramp`, each with a
 * fresh Idempotency-Key (BENCH_ORDER_KEYS=0: without), for BENCH_DURATION_S after a warm-up. Printed:
 * orders/s, each process's share of a core over the measured stretch, and, once the services have
 * exited, each profiled one's self time by package and by function over the measured stretch.
 *
 *   pnpm exec tsx bench/order-profile.ts
 *   BENCH_PROFILE=chain-watcher BENCH_DURATION_S=20 pnpm exec tsx bench/order-profile.ts
 *
 * MONGODB_URI is honoured; otherwise the local database is started (FerretDB on PostgreSQL by default).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVICE_NAMES, type ServiceName } from "@ramp/contracts";
import { ensureNatsServer, type RunningProcess, startLocalDatabase, TOOLS_DIR } from "@ramp/devinfra";
import { startProcessStack } from "../e2e/support/process-stack.ts";
import { sandboxChainEnv } from "../e2e/support/tokens.ts";
import { closedLoop } from "./support/closed-loop.ts";
import { formatProfile, monotonicUs, summariseProfileDir } from "./support/cpu-profile.ts";
import { ORDER_BODIES } from "./support/order-bodies.ts";
import { cpuMeter, formatCpu } from "./support/process-cpu.ts";
import { envNumber, report } from "./support/report.ts";

const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
const WARMUP_S = Math.min(3, DURATION_S);
const KEYED = process.env.BENCH_ORDER_KEYS !== "0";
const ADMIN_TOKEN = "bench-admin-token-0123456789";
const PROFILED = (process.env.BENCH_PROFILE ?? "gateway,orders,chain-watcher,banking,pricing")
  .split(",")
  .filter((s) => s !== "");
for (const name of PROFILED)
  if (!(SERVICE_NAMES as readonly string[]).includes(name))
    throw new Error(`BENCH_PROFILE takes names among ${SERVICE_NAMES.join(", ")}`);

const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
const profileDir = (name: string) => join(dataDir, "profiles", name);
for (const name of PROFILED) mkdirSync(profileDir(name), { recursive: true });
const db: RunningProcess | undefined = process.env.MONGODB_URI
  ? undefined
  : await startLocalDatabase(dataDir);
const stack = await startProcessStack({
  mongoUrl: process.env.MONGODB_URI || (db as RunningProcess).url,
  natsBin: ensureNatsServer(TOOLS_DIR),
  dataDir,
  adminToken: ADMIN_TOKEN,
  logLevel: "warn",
  serviceEnv: {
    "chain-watcher": sandboxChainEnv,
    // Rate limit lifted: this measures the system, not the limiter.
    gateway: { RATE_LIMIT_PER_SECOND: "0" },
  },
  nodeArgs: Object.fromEntries(
    PROFILED.map((name) => [name, ["--cpu-prof", `--cpu-prof-dir=${profileDir(name)}`]]),
  ),
});

const base = stack.gatewayUrl;
const json = (method: string, path: string, headers: Record<string, string>, body: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
await json("PUT", "/admin/v1/rates/NGN", admin, { onRamp: 1650, offRamp: 1600 });
const { apiKey } = (await (
  await json("POST", "/admin/v1/businesses", admin, { name: "Bench", feeBps: 50 })
).json()) as { apiKey: string };

let failures = 0;
let turn = 0;
async function create(): Promise<boolean> {
  const kind = turn++ % 2 === 0 ? "offramp" : "onramp";
  const res = await json(
    "POST",
    `/pub/v2/${kind}`,
    { "x-api-key": apiKey, ...(KEYED ? { "idempotency-key": randomUUID() } : {}) },
    ORDER_BODIES[kind],
  );
  const text = await res.text();
  if (res.status !== 201 && failures++ < 3) console.log(`${kind}: ${res.status} ${text}`);
  return res.status === 201;
}

await closedLoop(CONCURRENCY, WARMUP_S, create);
const pids: Record<string, number | undefined> = {
  ...Object.fromEntries(stack.services().map((p) => [p.name, p.pid])),
  "nats-server": stack.natsPid,
  database: db?.child.pid,
};
const meter = cpuMeter(pids, "load generator");
const fromUs = monotonicUs();
const load = await closedLoop(CONCURRENCY, DURATION_S, create);
const window = { fromUs, toUs: monotonicUs() };
const cpu = meter.stop();
console.log(
  `orders (offramp and onramp alternating, ${CONCURRENCY} clients, ${KEYED ? "Idempotency-Key on each" : "no Idempotency-Key"}, services as processes): ${load.perSecond.toFixed(0)}/s, p50 ${load.p50Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms, ${load.errors} errors`,
);
console.log(`  ${formatCpu(cpu)}`);
report({
  key: "orders-created-processes",
  label: "POST /pub/v2/offramp + /onramp, services as processes",
  value: load.perSecond,
  unit: "orders/s",
  p50Ms: load.p50Ms,
  p99Ms: load.p99Ms,
});

await stack.close();
await db?.stop();
for (const name of PROFILED as ServiceName[]) {
  const summary = summariseProfileDir(profileDir(name), window);
  console.log(`\n${name}:`);
  console.log(summary ? formatProfile(summary) : "  no profile written (did it exit cleanly?)");
}
rmSync(dataDir, { recursive: true, force: true });
process.exit(load.errors > 0 ? 1 : 0);
