/**
 * Does a second replica add throughput? The services run as real processes (as deployed, one event loop
 * each) against one local nats-server and database; the same two loads are measured with one process
 * of each service on the path, then with two:
 *
 * - `GET /pub/v2/rate` (gateway → NATS → pricing), spread over every gateway's port, as a load
 *   balancer would;
 * - order creation, `POST /pub/v2/offramp` (gateway → orders → pricing for the quote, chain-watcher for
 *   the deposit address → database), the same way.
 *
 * Each figure with two replicas is reported against the same run's figure with one, so the ratio is
 * the scaling (200 % would be perfect). Beside each figure: every process's CPU, and the machine's.
 *
 * Where it stops scaling, measured on a 2-core machine shared with other work (CPU shares printed
 * per process):
 *
 * - Rates grew 1.1–1.5× over three runs (292 → 320, 218 → 308, 97 → 146 req/s). With one process each,
 *   the gateway (30–40 % of a core), the load generator (25–35 %, this process: fetch loops when `wrk`
 *   is absent), pricing and NATS together took about a core, and the machine was 100 % busy (other work
 *   shared it). A second gateway and pricing process only get CPU time that was idle, so on two cores
 *   the gain stops well short of 2×: it stops at the cores.
 * - Order creation fell (0.36–0.55×: 9.8 → 5.5, 5.3 → 1.9 orders/s): the database process was the busy
 *   one (45–65 % of a core) while the services idled at a few percent. FerretDB on SQLite writes one
 *   transaction at a time and an order is several writes (idempotency key, quote, deposit address,
 *   order, claims), so more service processes only add writers contending for one lock. (The second
 *   phase also runs on the orders the first one created; on FerretDB some reads grow with them.) Order
 *   creation scales with the database (a MongoDB replica set's primary), not with service replicas.
 *
 * With more cores than processes and MongoDB, the same script measures real scale-out; NATS and the
 * database are then the shared floor (bench/nats-floor.ts, bench/database-floor.ts).
 *
 *   pnpm exec tsx bench/replicas.ts
 *   BENCH_DURATION_S=5 BENCH_CONCURRENCY=32 BENCH_ORDER_CONCURRENCY=8 pnpm exec tsx bench/replicas.ts
 *
 * MONGODB_URI is honoured; otherwise a local mongod (or FerretDB) is started. Load only to 127.0.0.1.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ServiceName } from "@ramp/contracts";
import {
  DATA_DIR,
  ensureNatsServer,
  type RunningProcess,
  startLocalDatabase,
  TOOLS_DIR,
} from "@ramp/devinfra";
import { type ProcessStack, startProcessStack } from "../e2e/support/process-stack.ts";
import { BASE_USDC, sandboxChainEnv } from "../e2e/support/tokens.ts";
import { closedLoop, type LoopResult } from "./support/closed-loop.ts";
import { cpuMeter, formatCpu } from "./support/process-cpu.ts";
import { envNumber, report } from "./support/report.ts";

const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32);
/**
 * Order creation is slow per call (several database writes): more callers than this only queue up
 * until the gateway's request timeout answers 503, which says nothing more about throughput.
 */
const ORDER_CONCURRENCY = envNumber("BENCH_ORDER_CONCURRENCY", 8);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
/** JIT and connection pools warm, in each phase, before anything is counted. */
const WARMUP_S = Math.min(3, DURATION_S);
const ADMIN_TOKEN = "bench-admin-token-0123456789";
/** The services on the measured paths: doubled in the second phase. Banking and webhooks stay single. */
const SCALED: ServiceName[] = ["gateway", "pricing", "orders", "chain-watcher"];

mkdirSync(DATA_DIR, { recursive: true });
const dataDir = mkdtempSync(join(DATA_DIR, "bench-replicas-"));
const db: RunningProcess | undefined = process.env.MONGODB_URI
  ? undefined
  : await startLocalDatabase(dataDir);
const mongoUrl = process.env.MONGODB_URI || (db as RunningProcess).url;
const stack: ProcessStack = await startProcessStack({
  mongoUrl,
  natsBin: ensureNatsServer(TOOLS_DIR),
  dataDir,
  adminToken: ADMIN_TOKEN,
  logLevel: "warn",
  replicas: Object.fromEntries(SCALED.map((s) => [s, 2])),
  serviceEnv: {
    "chain-watcher": sandboxChainEnv,
    // Rate limit lifted: this measures the system, not the limiter.
    gateway: { RATE_LIMIT_PER_SECOND: "0" },
  },
});

const call = (url: string, method: string, headers: Record<string, string>, body?: unknown) =>
  fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
await call(`${stack.gatewayUrl}/admin/v1/rates/NGN`, "PUT", admin, { onRamp: 1650, offRamp: 1580 });
const business = (await (
  await call(`${stack.gatewayUrl}/admin/v1/businesses`, "POST", admin, { name: "Bench", feeBps: 50 })
).json()) as { apiKey: string };
const key = { "x-api-key": business.apiKey };
const offramp = {
  accountNumber: "0123456789",
  bankCode: "000013",
  currency: "NGN",
  chain: "BASE",
  mint: BASE_USDC,
  amount: 25,
};

/** Every loop call goes to the next gateway in turn: what a round-robin load balancer does. */
function roundRobin(urls: string[]) {
  let next = 0;
  return () => urls[next++ % urls.length] as string;
}

/** What the failed calls of the current measurement answered (status, or the error's name), counted. */
let failures = new Map<string, number>();
const failed = (what: string) => {
  failures.set(what, (failures.get(what) ?? 0) + 1);
  return false;
};
const answered = async (request: Promise<Response>, ok: number) => {
  const res = await request.catch((err: unknown) => err as Error);
  if (res instanceof Error) return failed(res.name);
  await res.arrayBuffer();
  return res.status === ok || failed(String(res.status));
};
const rateLoad = (urls: string[]) => {
  const base = roundRobin(urls);
  return () => answered(call(`${base()}/pub/v2/rate?currency=NGN`, "GET", key), 200);
};
const offrampLoad = (urls: string[]) => {
  const base = roundRobin(urls);
  return () => answered(call(`${base()}/pub/v2/offramp`, "POST", key, offramp), 201);
};

const pids = (): Record<string, number | undefined> => ({
  ...Object.fromEntries(stack.services().map((p) => [p.name, p.pid])),
  "nats-server": stack.natsPid,
  database: db?.child.pid,
});

async function measure(what: string, concurrency: number, once: () => Promise<boolean>): Promise<LoopResult> {
  await closedLoop(concurrency, WARMUP_S, once);
  failures = new Map();
  const meter = cpuMeter(pids(), "load generator");
  const r = await closedLoop(concurrency, DURATION_S, once);
  const cpu = meter.stop();
  const why = [...failures].map(([k, n]) => `${k} ×${n}`).join(", ");
  console.log(
    `${what}: ${r.perSecond.toFixed(1)}/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ` +
      `${r.errors} errors${why ? ` (${why})` : ""}`,
  );
  console.log(`  ${formatCpu(cpu)}`);
  return r;
}

const second = SCALED.map((s) => stack.replicasOf(s)[1]).flatMap((p) => (p ? [p] : []));
const results: Record<"rate" | "offramp", LoopResult[]> = { rate: [], offramp: [] };
let errors = 0;
try {
  for (const replicas of [1, 2] as const) {
    await Promise.all(second.map((p) => (replicas === 1 ? p.stop() : p.start())));
    const urls = stack.gatewayUrls.slice(0, replicas);
    console.log(`\n${replicas} replica(s) of ${SCALED.join(", ")}; load on ${urls.join(", ")}`);
    const rate = await measure(`GET /pub/v2/rate, ${CONCURRENCY} callers`, CONCURRENCY, rateLoad(urls));
    const orders = await measure(
      `POST /pub/v2/offramp, ${ORDER_CONCURRENCY} callers`,
      ORDER_CONCURRENCY,
      offrampLoad(urls),
    );
    results.rate.push(rate);
    results.offramp.push(orders);
    errors += rate.errors + orders.errors;
    const n = replicas === 1 ? "one replica" : "two replicas";
    report({
      key: `replicas-rate-${replicas}`,
      label: `GET /pub/v2/rate, ${n} of gateway and pricing (processes)`,
      value: rate.perSecond,
      unit: "req/s",
      p50Ms: rate.p50Ms,
      p99Ms: rate.p99Ms,
    });
    report({
      key: `replicas-offramp-${replicas}`,
      label: `POST /pub/v2/offramp, ${n} of gateway, orders, pricing, chain-watcher`,
      value: orders.perSecond,
      unit: "orders/s",
      p50Ms: orders.p50Ms,
      p99Ms: orders.p99Ms,
    });
  }
  const ratio = (xs: LoopResult[]) =>
    xs[0] && xs[1] && xs[0].perSecond > 0 ? (xs[1].perSecond / xs[0].perSecond).toFixed(2) : "—";
  console.log(
    `\ntwo ÷ one: rates ${ratio(results.rate)}×, order creation ${ratio(results.offramp)}× ` +
      `(2.00× would be perfect scaling)`,
  );
} finally {
  await stack.close();
  await db?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(errors > 0 ? 1 : 0);
