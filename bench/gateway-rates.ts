/**
 * Read-path throughput through every layer: HTTP → gateway (auth, validation, rate limit) → NATS
 * request/reply → pricing → database → back. Runs the gateway and pricing in this process (plus the
 * webhook-dispatcher, which issuing an API key needs) against real local NATS and database, then keeps
 * CONCURRENCY keep-alive clients busy on `GET /pub/v2/rate?currency=NGN` for DURATION seconds.
 *
 *   pnpm exec tsx bench/gateway-rates.ts
 *   BENCH_CONCURRENCY=64 BENCH_DURATION_S=15 pnpm exec tsx bench/gateway-rates.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceName } from "@ramp/contracts";
import { startInfra } from "@ramp/devinfra";
import { loadGatewayConfig, startGateway } from "@ramp/gateway";
import { loadPricingConfig, startPricing } from "@ramp/pricing";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 10) * 1000;
const ADMIN_TOKEN = "bench-admin-token-0123456789";

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
const infra = await startInfra({ dataDir });
const env = (name: ServiceName) => ({
  NATS_URL: infra.natsUrl,
  NATS_NKEY_SEED: infra.natsSeeds[name],
  MONGODB_URI: infra.mongoUrl,
  MONGODB_DATABASE: `bench_rates_${name}`,
  LOG_LEVEL: "warn",
});
const pricing = await startPricing(loadPricingConfig(env("pricing")));
const webhooks = await startWebhookDispatcher(loadWebhookDispatcherConfig(env("webhook-dispatcher")));
// Rate limit lifted: this measures the system, not the limiter.
const gateway = await startGateway(
  loadGatewayConfig({ ...env("gateway"), PORT: "0", ADMIN_TOKEN, RATE_LIMIT_PER_SECOND: "0" }),
);
const base = `http://127.0.0.1:${gateway.port}`;
const admin = (method: string, path: string, body: unknown) =>
  fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
await admin("PUT", "/rates/NGN", { onRamp: 1650, offRamp: 1580 });
const { apiKey } = (await (await admin("POST", "/businesses", { name: "Bench", feeBps: 50 })).json()) as {
  apiKey: string;
};

const latencies: number[] = [];
let errors = 0;
const deadline = performance.now() + DURATION_MS;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      const res = await fetch(`${base}/pub/v2/rate?currency=NGN`, { headers: { "x-api-key": apiKey } });
      await res.arrayBuffer();
      if (res.status === 200) latencies.push(performance.now() - t);
      else errors++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
console.log(
  `GET /pub/v2/rate: ${latencies.length} ok, ${errors} errors in ${seconds.toFixed(1)} s, concurrency ${CONCURRENCY}`,
);
console.log(
  `latency ms: p50 ${pct(latencies, 0.5).toFixed(1)}  p99 ${pct(latencies, 0.99).toFixed(1)}  max ${pct(latencies, 1).toFixed(1)}`,
);
console.log(`RESULT gateway rate reads/s: ${(latencies.length / seconds).toFixed(0)}`);

await gateway.stop();
await webhooks.stop();
await pricing.stop();
await infra.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(errors > 0 ? 1 : 0);
