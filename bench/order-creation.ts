/**
 * Order creation through every service: HTTP → gateway → NATS → orders, which asks banking (name
 * enquiry, virtual account), chain-watcher (token info, deposit address) and pricing (rates), then
 * stores the order. All six services run in this process against real local NATS and database, the
 * sandbox rails and chains behind them.
 *
 * 1. Floor: single-document inserts per second on the same database with the same concurrency, so the
 *    orders/s below is read against what this database could write during this run.
 * 2. Counted: BENCH_ORDERS_COUNTED offramps, then as many onramps, each with and without an
 *    Idempotency-Key; every write command (insert, update, delete, findAndModify) any service's driver
 *    sends and every NATS request (RPC or JetStream publish) any service makes meanwhile, per order,
 *    broken down by service and collection or subject.
 * 3. Throughput: BENCH_CONCURRENCY clients alternating `POST /pub/v2/offramp` and `POST /pub/v2/onramp`
 *    for BENCH_DURATION_S, each request with a fresh Idempotency-Key as the SDK sends it
 *    (BENCH_ORDER_KEYS=0: without).
 * 4. Deposits counted: a sandbox token deposit to each of BENCH_ORDERS_COUNTED new offramps, until each
 *    order's PROCESSING and COMPLETED webhooks arrive; writes and requests per deposit, as in 2.
 *
 *   pnpm exec tsx bench/order-creation.ts
 *   BENCH_CONCURRENCY=64 BENCH_DURATION_S=15 pnpm exec tsx bench/order-creation.ts
 *   BENCH_PROFILE=1 pnpm exec tsx bench/order-creation.ts   (CPU profile of the throughput phase: self
 *                                                            time by package and function, printed)
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBankingConfig, startBanking } from "@ramp/banking";
import { loadChainWatcherConfig, startChainWatcher } from "@ramp/chain-watcher";
import type { ServiceName } from "@ramp/contracts";
import { peerKeysFromSeeds, startInfra } from "@ramp/devinfra";
import { loadGatewayConfig, startGateway } from "@ramp/gateway";
import { loadOrdersConfig, startOrders } from "@ramp/orders";
import { loadPricingConfig, startPricing } from "@ramp/pricing";
import type { ServiceHandle } from "@ramp/runtime";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { MongoClient } from "mongodb";
import { sandboxChainEnv } from "../e2e/support/tokens.ts";
import { closedLoop } from "./support/closed-loop.ts";
import { formatProfile, profileWhile } from "./support/cpu-profile.ts";
import { ORDER_BODIES, type OrderKind } from "./support/order-bodies.ts";
import { envNumber, report } from "./support/report.ts";

const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
const COUNTED = envNumber("BENCH_ORDERS_COUNTED", 100);
/** BENCH_ORDER_KEYS=0: the throughput phase sends no Idempotency-Key, to see what the keys cost. */
const KEYED = process.env.BENCH_ORDER_KEYS !== "0";
/** BENCH_PROFILE=1: the throughput phase runs under V8's CPU profiler (every service is in this process). */
const PROFILE = process.env.BENCH_PROFILE === "1";
const ADMIN_TOKEN = "bench-admin-token-0123456789";
const WRITE_COMMANDS = new Set(["insert", "update", "delete", "findAndModify", "bulkWrite"]);
const READ_COMMANDS = new Set(["find", "count", "aggregate", "distinct", "getMore"]);

const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
const infra = await startInfra({ dataDir });
console.log(`infra: ${infra.source} (nats ${infra.natsUrl})`);
// The services run in this process: one whose connection fails (under a loaded machine) throws outside
// any await of this script. The local NATS and database are stopped with it rather than left running.
for (const event of ["uncaughtException", "unhandledRejection"] as const)
  process.once(event, (err: unknown) => {
    console.error(err);
    void infra.stop().finally(() => process.exit(1));
  });
// The driver reports every command it sends only when asked to: the services themselves are unchanged.
const monitoredUri = `${infra.mongoUrl}${infra.mongoUrl.includes("?") ? "&" : "?"}monitorCommands=true`;
const run = Date.now().toString(36);
const env = (name: ServiceName) => ({
  NATS_URL: infra.natsUrl,
  NATS_NKEY_SEED: infra.natsSeeds[name],
  NATS_PEER_KEYS: peerKeysFromSeeds(infra.natsSeeds),
  MONGODB_URI: monitoredUri,
  MONGODB_DATABASE: `bench_orders_${run}_${name.replace(/-/g, "_")}`,
  LOG_LEVEL: "warn",
  RAMP_SANDBOX: "true",
});

// --- 1. the database floor, before anything else loads the machine ---------------------------------
const floorClient = await MongoClient.connect(infra.mongoUrl);
const floorCol = floorClient.db(`bench_orders_${run}_floor`).collection<{ i: number }>("inserts");
await floorCol.insertOne({ i: -1 });
let floorNext = 0;
const floor = await closedLoop(CONCURRENCY, Math.min(DURATION_S, 3), async () => {
  await floorCol.insertOne({ i: floorNext++ });
  return true;
});
await floorClient.close();
console.log(
  `database floor: insertOne × ${CONCURRENCY} in parallel: ${floor.perSecond.toFixed(0)}/s, p50 ${floor.p50Ms.toFixed(1)} ms, p99 ${floor.p99Ms.toFixed(1)} ms`,
);
report({
  key: "orders-db-insert-floor",
  label: `database insertOne, ${CONCURRENCY} in parallel (same database)`,
  value: floor.perSecond,
  unit: "inserts/s",
  p50Ms: floor.p50Ms,
  p99Ms: floor.p99Ms,
});

// --- the stack --------------------------------------------------------------------------------------
const services: Array<[ServiceName, ServiceHandle<never>]> = [];
const add = async (name: ServiceName, start: Promise<unknown>) => {
  services.push([name, (await start) as ServiceHandle<never>]);
};
await add("pricing", startPricing(loadPricingConfig(env("pricing"))));
await add("banking", startBanking(loadBankingConfig(env("banking"))));
await add(
  "chain-watcher",
  startChainWatcher(loadChainWatcherConfig({ ...env("chain-watcher"), ...sandboxChainEnv })),
);
await add("orders", startOrders(loadOrdersConfig(env("orders"))));
await add(
  "webhook-dispatcher",
  startWebhookDispatcher(
    loadWebhookDispatcherConfig({ ...env("webhook-dispatcher"), WEBHOOK_ALLOW_PRIVATE: "true" }),
  ),
);
// Rate limit lifted: this measures the system, not the limiter.
const gateway = await startGateway(
  loadGatewayConfig({ ...env("gateway"), PORT: "0", ADMIN_TOKEN, RATE_LIMIT_PER_SECOND: "0" }),
);
services.push(["gateway", gateway as unknown as ServiceHandle<never>]);

// Every write and read command, by service and collection, with the time the database took for it,
// and every NATS request, by service and subject.
const writes = new Map<string, number>();
const reads = new Map<string, number>();
const dbMs = new Map<string, number>();
const requests = new Map<string, number>();
const bump = (m: Map<string, number>, k: string, by = 1) => m.set(k, (m.get(k) ?? 0) + by);
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
for (const [name, svc] of services) {
  const started = new Map<number, string>();
  const { client } = svc.deps.db;
  client.on("commandStarted", (e) => {
    const what = `${name} ${e.commandName} ${String(e.command[e.commandName])}`;
    if (WRITE_COMMANDS.has(e.commandName)) bump(writes, what);
    else if (READ_COMMANDS.has(e.commandName)) bump(reads, what);
    else return;
    started.set(e.requestId, what);
  });
  const finished = (e: { requestId: number; duration: number }) => {
    const what = started.get(e.requestId);
    started.delete(e.requestId);
    if (what) bump(dbMs, what, e.duration);
  };
  client.on("commandSucceeded", finished);
  client.on("commandFailed", finished);
  // RPC calls and JetStream publishes (which wait for the stream's ack) both go through request().
  const { nc } = svc.deps;
  const request = nc.request.bind(nc);
  nc.request = (subject, ...rest) => {
    // One line per KV bucket, not per key: a document's hold or a webhook lane is a key of its own.
    bump(
      requests,
      `${name} → ${subject.replace(/^(\$KV\.[^.]+)\..+$/, "$1.*").replace(/^(\$JS\.API\.DIRECT\.GET\.[^.]+)\..+$/, "$1.*")}`,
    );
    return request(subject, ...rest);
  };
}

const base = `http://127.0.0.1:${gateway.port}`;
const admin = (method: string, path: string, body: unknown) =>
  fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
await admin("PUT", "/rates/NGN", { onRamp: 1650, offRamp: 1600 });
const { apiKey } = (await (await admin("POST", "/businesses", { name: "Bench", feeBps: 50 })).json()) as {
  apiKey: string;
};

type Kind = OrderKind;
const BODIES = {
  offramp: JSON.stringify(ORDER_BODIES.offramp),
  onramp: JSON.stringify(ORDER_BODIES.onramp),
};
let failures = 0;
async function create(kind: Kind, keyed: boolean): Promise<boolean> {
  const res = await fetch(`${base}/pub/v2/${kind}`, {
    method: "POST",
    headers: {
      "x-api-key": apiKey,
      "content-type": "application/json",
      ...(keyed ? { "idempotency-key": randomUUID() } : {}),
    },
    body: BODIES[kind],
  });
  const text = await res.text();
  if (res.status !== 201 && failures++ < 3) console.log(`${kind}: ${res.status} ${text}`);
  return res.status === 201;
}

/** What every service wrote, read and asked over NATS since the counters were cleared, per `units`. */
function printCounts(label: string, units: number, unit: string) {
  const per = (m: Map<string, number>) => total(m) / Math.max(1, units);
  console.log(
    `${label}: database writes per ${unit} ${per(writes).toFixed(2)}, reads ${per(reads).toFixed(2)}, NATS requests per ${unit} ${per(requests).toFixed(2)}`,
  );
  const breakdown = (m: Map<string, number>, timed = false) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => {
        const ms = timed ? `  (${((dbMs.get(k) ?? 0) / v).toFixed(1)} ms each)` : "";
        return `    ${(v / Math.max(1, units)).toFixed(2)}  ${k}${ms}`;
      })
      .join("\n");
  console.log(
    `  writes:\n${breakdown(writes, true)}\n  reads:\n${breakdown(reads, true)}\n  NATS requests:\n${breakdown(requests)}`,
  );
  return { writes: per(writes), reads: per(reads), requests: per(requests) };
}
const clearCounts = () => {
  for (const m of [writes, reads, dbMs, requests]) m.clear();
};

/** `n` creations with a few in flight; what every service wrote and asked over NATS meanwhile, per order. */
async function counted(kind: Kind, keyed: boolean, n: number) {
  clearCounts();
  let next = 0;
  let created = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(8, n) }, async () => {
      while (next++ < n) if (await create(kind, keyed)) created++;
    }),
  );
  const label = `${kind}${keyed ? " with Idempotency-Key" : ""}`;
  const seconds = (performance.now() - started) / 1000;
  const c = printCounts(`${label}: ${created}/${n} created in ${seconds.toFixed(1)} s`, created, "order");
  return { ...c, ok: created === n };
}

// --- 2. counted -----------------------------------------------------------------------------------
for (const kind of ["offramp", "onramp"] as const) await create(kind, false); // warm caches and connections
const countedOk: boolean[] = [];
for (const kind of ["offramp", "onramp"] as const) {
  for (const keyed of [false, true]) {
    const c = await counted(kind, keyed, COUNTED);
    countedOk.push(c.ok);
    const suffix = keyed ? "-keyed" : "";
    const label = `${kind === "offramp" ? "POST /pub/v2/offramp" : "POST /pub/v2/onramp"}${keyed ? " with Idempotency-Key" : ""}`;
    report({
      key: `${kind}-db-writes${suffix}`,
      label: `database writes per order, ${label}, all services`,
      value: c.writes,
      unit: "writes/order",
    });
    report({
      key: `${kind}-nats-requests${suffix}`,
      label: `NATS round trips per order, ${label}, all services`,
      value: c.requests,
      unit: "requests/order",
    });
  }
}

// --- 3. throughput --------------------------------------------------------------------------------
let turn = 0;
const throughput = () =>
  closedLoop(CONCURRENCY, DURATION_S, () => create(turn++ % 2 === 0 ? "offramp" : "onramp", KEYED));
const cpuBefore = process.cpuUsage();
const loadStarted = performance.now();
const { result: load, profile } = PROFILE
  ? await profileWhile(throughput)
  : { result: await throughput(), profile: null };
const cpuUsed = process.cpuUsage(cpuBefore);
const ordersCreated = (load.perSecond * (performance.now() - loadStarted)) / 1000;
if (profile)
  console.log(
    `CPU profile of the throughput phase (all services, one process):\n${formatProfile(profile, 25)}`,
  );
console.log(
  `orders (offramp and onramp alternating, ${CONCURRENCY} clients, ${KEYED ? "Idempotency-Key on each" : "no Idempotency-Key"}): ${load.perSecond.toFixed(0)}/s, p50 ${load.p50Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms, ${load.errors} errors`,
);
console.log(
  `orders/s ÷ database inserts/s (same run): ${((load.perSecond / floor.perSecond) * 100).toFixed(1)} %`,
);
// CPU time, unlike orders/s, hardly depends on what else loads the machine: what one order costs every
// service (and the load generator) together, and so what one core could sustain at most.
const cpuMsPerOrder = (cpuUsed.user + cpuUsed.system) / 1000 / Math.max(1, ordersCreated);
console.log(
  `CPU of this process (all six services and the load generator) per order: ${cpuMsPerOrder.toFixed(2)} ms, at most ${(1000 / cpuMsPerOrder).toFixed(0)} orders/s per core`,
);
report({
  key: "orders-cpu-per-order",
  label: "CPU per order, all services and the load generator in one process",
  value: cpuMsPerOrder,
  unit: "ms/order",
});
report({
  key: "orders-created",
  label: "POST /pub/v2/offramp + /onramp, all services",
  value: load.perSecond,
  unit: "orders/s",
  p50Ms: load.p50Ms,
  p99Ms: load.p99Ms,
});

// --- 4. deposits, counted ------------------------------------------------------------------------
// A sandbox token deposit to each of BENCH_ORDERS_COUNTED fresh offramps, a few in flight, until each
// order's PROCESSING and final webhooks came back: everything every service wrote and asked meanwhile
// (the deposit, the order's two state changes, the payout, the webhook deliveries), per deposit.
const finals = new Map<string, Set<string>>();
const hooks = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const { id, status } = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; status: string };
    finals.set(id, (finals.get(id) ?? new Set()).add(status));
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
await fetch(`${base}/pub/v2/webhook`, {
  method: "PATCH",
  headers: { "x-api-key": apiKey, "content-type": "application/json" },
  body: JSON.stringify({ rampWebhookURL: hookUrl }),
});
/**
 * Sandbox deposits to BENCH_ORDERS_COUNTED fresh offramps, `inFlight` at a time, counted until every
 * order's PROCESSING and final webhooks came back. Writes ready at the same moment share a command
 * (group commit), so the count depends on how many deposits are under way together.
 */
async function countDeposits(inFlight: number) {
  const depositTo: string[] = [];
  for (let i = 0; i < COUNTED; i++) {
    const res = await fetch(`${base}/pub/v2/offramp`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: BODIES.offramp,
    });
    depositTo.push(((await res.json()) as { id: string }).id);
  }
  clearCounts();
  let nextDeposit = 0;
  let deposited = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (nextDeposit < depositTo.length) {
        const id = depositTo[nextDeposit++] as string;
        const res = await fetch(`${base}/sandbox/v2/offramp/${id}/token-deposit`, {
          method: "POST",
          headers: { "x-api-key": apiKey, "content-type": "application/json" },
          body: "{}",
        });
        if (res.status === 202) deposited++;
        await res.text();
      }
    }),
  );
  const ended = (id: string) => {
    const seen = finals.get(id);
    return seen?.has("PROCESSING") && (seen.has("COMPLETED") || seen.has("ERROR"));
  };
  for (let waited = 0; waited < 120_000 && !depositTo.every(ended); waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  const settled = depositTo.filter(ended).length;
  const counts = printCounts(
    `offramp deposits, ${inFlight} under way at a time: ${deposited}/${COUNTED} accepted, ${settled} with both webhooks`,
    settled,
    "deposit",
  );
  return { ...counts, settled };
}
const alone = await countDeposits(1);
report({
  key: "deposit-db-writes-one-at-a-time",
  label:
    "database writes per offramp deposit until its PROCESSING and COMPLETED webhooks, one deposit at a time",
  value: alone.writes,
  unit: "writes/deposit",
});
report({
  key: "deposit-db-reads-one-at-a-time",
  label:
    "database reads per offramp deposit until its PROCESSING and COMPLETED webhooks, one deposit at a time",
  value: alone.reads,
  unit: "reads/deposit",
});
const together = await countDeposits(8);
report({
  key: "deposit-db-writes",
  label:
    "database writes per offramp deposit until its PROCESSING and COMPLETED webhooks, 8 under way at a time",
  value: together.writes,
  unit: "writes/deposit",
});
hooks.closeAllConnections();
hooks.close();

for (const [, svc] of [...services].reverse()) await svc.stop();
await infra.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(
  load.errors > 0 || countedOk.includes(false) || alone.settled < COUNTED || together.settled < COUNTED
    ? 1
    : 0,
);
