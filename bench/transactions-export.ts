/**
 * Memory of the CSV export: inserts BENCH_ROWS orders of one business straight into the orders
 * database, then streams `GET /pub/v2/transactions/export` through gateway → NATS → orders and samples
 * this process's RSS and heap (gateway and orders both run in it) while the rows arrive. Bounded memory
 * means the peak stays near the baseline whatever BENCH_ROWS is, instead of growing with it.
 * Everything listens on 127.0.0.1 and stops by itself.
 *
 *   npm run bench:export                   # 100,000 rows
 *   BENCH_ROWS=2000 npm run bench:export
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceName } from "@ramp/contracts";
import { peerKeysFromSeeds, startInfra } from "@ramp/devinfra";
import { loadGatewayConfig, startGateway } from "@ramp/gateway";
import { loadOrdersConfig, startOrders } from "@ramp/orders";
import { loadPricingConfig, startPricing } from "@ramp/pricing";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { MongoClient, ObjectId } from "mongodb";
import type { OrderDoc } from "../services/orders/src/orders/order-doc.ts";
import { insertListedOrders } from "../services/orders/src/orders/order-list-keys.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const ADMIN_TOKEN = "bench-admin-token-0123456789";
const MB = 1024 * 1024;

const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
const infra = await startInfra({ dataDir });
const env = (name: ServiceName) => ({
  NATS_URL: infra.natsUrl,
  NATS_NKEY_SEED: infra.natsSeeds[name],
  NATS_PEER_KEYS: peerKeysFromSeeds(infra.natsSeeds),
  MONGODB_URI: infra.mongoUrl,
  MONGODB_DATABASE: `bench_export_${name}`,
  LOG_LEVEL: "warn",
});
const pricing = await startPricing(loadPricingConfig(env("pricing")));
const webhooks = await startWebhookDispatcher(loadWebhookDispatcherConfig(env("webhook-dispatcher")));
const orders = await startOrders(loadOrdersConfig(env("orders")));
const gateway = await startGateway(
  loadGatewayConfig({ ...env("gateway"), PORT: "0", ADMIN_TOKEN, RATE_LIMIT_PER_SECOND: "0" }),
);
const base = `http://127.0.0.1:${gateway.port}`;
const created = await fetch(`${base}/admin/v1/businesses`, {
  method: "POST",
  headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
  body: JSON.stringify({ name: "Bench" }),
});
const business = (await created.json()) as { id: string; apiKey: string };

// Setup: orders as the orders service stores them (listed), newest a second ago, 100 ms apart (ten a
// second: a rate one business can keep up; the list reads a minute of a business's orders at once).
const mongo = await MongoClient.connect(infra.mongoUrl);
const ordersDb = mongo.db(env("orders").MONGODB_DATABASE);
await ordersDb.collection("orders").deleteMany({});
const t0 = Date.now() - 1000;
const setupStarted = performance.now();
for (let from = 0; from < ROWS; from += 5000) {
  const batch = Array.from({ length: Math.min(5000, ROWS - from) }, (_, k) => {
    const i = from + k;
    return {
      _id: new ObjectId(),
      businessId: business.id,
      apiKeyId: null,
      transactionType: i % 2 ? "ON_RAMP" : "OFF_RAMP",
      status: "COMPLETED",
      sequence: 2,
      chain: "BASE",
      mint: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      mintKey: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      recipient: "0x1234567890abcdef1234567890abcdef12345678",
      currency: "NGN",
      amount: "12.345678",
      fiatAmount: "20370.37",
      usdcAmount: "12.345678",
      rate: "1650",
      fee: "0",
      usdPrice: "1",
      decimals: 6,
      setupCostUsd: "0",
      address: "",
      signature: `0x${i.toString(16).padStart(64, "0")}`,
      sender: "",
      accountNumber: "9912345678",
      accountName: "RAMP CHECKOUT(Pay NGN 20370.37)",
      bank: "Sandbox Bank",
      bankCode: "",
      webhookURL: null,
      userExternalId: `customer ${i}, "bench"`,
      userId: null,
      description: null,
      errorReason: null,
      createdAt: new Date(t0 - i * 100),
      expiresAt: null,
      outbox: [],
    };
  });
  await insertListedOrders(ordersDb, batch as OrderDoc[]);
}
console.log(`setup: ${ROWS} orders inserted in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const baseline = process.memoryUsage();
let peakRss = baseline.rss;
let peakHeap = baseline.heapUsed;
// What the export keeps alive: each second, after a full collection (with --expose-gc, as
// `npm run bench:export` runs), the heap still in use. Without it the peak also holds garbage that
// V8 had not yet collected, which grows with the run's length rather than with what is retained.
let peakLiveHeap = 0;
let samples = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
}, 50);
const liveSampler = setInterval(() => {
  if (!gc) return;
  gc();
  samples++;
  peakLiveHeap = Math.max(peakLiveHeap, process.memoryUsage().heapUsed);
}, 1000);

const started = performance.now();
const res = await fetch(`${base}/pub/v2/transactions/export`, { headers: { "x-api-key": business.apiKey } });
if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
const answeredAfter = (performance.now() - started) / 1000;
let bytes = 0;
let lines = 0;
let firstRowAfter = 0;
for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
  bytes += chunk.byteLength;
  for (const b of chunk) if (b === 10) lines++;
  if (!firstRowAfter && lines > 1) firstRowAfter = (performance.now() - started) / 1000;
}
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
clearInterval(liveSampler);

const rows = lines - 1; // header
console.log(
  `export: ${rows} rows, ${(bytes / MB).toFixed(1)} MB in ${seconds.toFixed(1)} s (${(rows / seconds).toFixed(0)} rows/s)`,
);
// The wait before the first row is the database's one sort of every matching order; the rest is the stream.
console.log(
  `answered after ${answeredAfter.toFixed(1)} s, first row after ${firstRowAfter.toFixed(1)} s, ` +
    `then ${((rows - 1) / Math.max(seconds - firstRowAfter, 0.001)).toFixed(0)} rows/s`,
);
console.log(
  `memory (gateway + orders + client, one process): baseline rss ${(baseline.rss / MB).toFixed(0)} MB, heap ${(baseline.heapUsed / MB).toFixed(0)} MB; ` +
    `peak rss ${(peakRss / MB).toFixed(0)} MB, heap ${(peakHeap / MB).toFixed(0)} MB`,
);
console.log(`RESULT export peak heap growth MB: ${((peakHeap - baseline.heapUsed) / MB).toFixed(1)}`);
if (gc)
  console.log(
    `RESULT export peak live heap growth MB (after GC, ${samples} samples): ${((peakLiveHeap - baseline.heapUsed) / MB).toFixed(1)}`,
  );
console.log(`RESULT export peak rss growth MB: ${((peakRss - baseline.rss) / MB).toFixed(1)}`);

await mongo.close();
await gateway.stop();
await orders.stop();
await webhooks.stop();
await pricing.stop();
await infra.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(rows === ROWS ? 0 : 1);
