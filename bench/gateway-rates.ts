/**
 * Read-path throughput through every layer: HTTP → gateway (auth, validation, rate limit, its copy of
 * pricing's answer, asked of pricing over NATS when it has none) → back. Runs the gateway and pricing in this process (plus the
 * webhook-dispatcher, which issuing an API key needs) against real local NATS and database, then keeps
 * CONCURRENCY keep-alive clients busy on `GET /pub/v2/rate?currency=NGN` for DURATION seconds (wrk when
 * installed, see support/http-load.ts), then at a fixed half of the rate it reached (the latency of a
 * gateway that is not saturated). Then the same read straight over NATS (`rates.get`, what the
 * gateway asks pricing), to set against bench/nats-floor.ts.
 *
 *   pnpm exec tsx bench/gateway-rates.ts
 *   BENCH_CONCURRENCY=64 BENCH_DURATION_S=15 pnpm exec tsx bench/gateway-rates.ts
 *   BENCH_INTERLEAVED_S=20 pnpm exec tsx bench/gateway-rates.ts   (also: gateway and bare Hono in turns)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rpc, type ServiceName } from "@ramp/contracts";
import { peerKeysFromSeeds, startInfra } from "@ramp/devinfra";
import { loadGatewayConfig, startGateway } from "@ramp/gateway";
import { loadPricingConfig, startPricing } from "@ramp/pricing";
import { callRpc } from "@ramp/runtime";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { closedLoop } from "./support/closed-loop.ts";
import { startHonoFloor } from "./support/hono-floor-server.ts";
import { httpAtRate, httpLoad } from "./support/http-load.ts";
import { envNumber, report } from "./support/report.ts";

const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
const ADMIN_TOKEN = "bench-admin-token-0123456789";

const dataDir = mkdtempSync(join(tmpdir(), "ramp-bench-"));
const infra = await startInfra({ dataDir });
const env = (name: ServiceName) => ({
  NATS_URL: infra.natsUrl,
  NATS_NKEY_SEED: infra.natsSeeds[name],
  NATS_PEER_KEYS: peerKeysFromSeeds(infra.natsSeeds),
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

const { id: businessId, apiKey } = (await (
  await admin("POST", "/businesses", { name: "Bench", feeBps: 50 })
).json()) as { id: string; apiKey: string };
const http = await httpLoad({
  url: `${base}/pub/v2/rate?currency=NGN`,
  headers: { "x-api-key": apiKey },
  concurrency: CONCURRENCY,
  durationS: DURATION_S,
});
console.log(
  `GET /pub/v2/rate (${http.generator}, ${CONCURRENCY} connections): ${http.requestsPerSecond.toFixed(0)} req/s, p50 ${http.p50Ms.toFixed(1)} ms, p99 ${http.p99Ms.toFixed(1)} ms, ${http.errors} errors`,
);
report({
  key: "gateway-rates",
  label: `GET /pub/v2/rate, gateway → NATS → pricing (${http.generator})`,
  value: http.requestsPerSecond,
  unit: "req/s",
  p50Ms: http.p50Ms,
  p99Ms: http.p99Ms,
});

// The latency a client sees when the gateway is not saturated: half the rate it just sustained.
const halfRate = Math.max(1, Math.round(http.requestsPerSecond / 2));
const half = await httpAtRate({
  url: `${base}/pub/v2/rate?currency=NGN`,
  headers: { "x-api-key": apiKey },
  concurrency: CONCURRENCY,
  durationS: DURATION_S,
  perSecond: halfRate,
});
console.log(
  `GET /pub/v2/rate at a fixed ${halfRate} req/s (half the above): ${half.perSecond.toFixed(0)} req/s answered, p50 ${half.p50Ms.toFixed(1)} ms, p99 ${half.p99Ms.toFixed(1)} ms, ${half.errors} errors`,
);
report({
  key: "gateway-rates-half-load",
  label: `GET /pub/v2/rate at a fixed half of that rate, ${halfRate} req/s (node, own process)`,
  value: half.perSecond,
  unit: "req/s",
  p50Ms: half.p50Ms,
  p99Ms: half.p99Ms,
});

// Opt-in, for a machine shared with other work: the gateway and a bare Hono server in this process take
// turns in one-second slices, so both see the same background load, and the ratio is read from that.
const INTERLEAVED_S = Number(process.env.BENCH_INTERLEAVED_S ?? 0);
if (INTERLEAVED_S > 0) {
  const floor = await startHonoFloor();
  const gw = { url: `${base}/pub/v2/rate?currency=NGN`, requests: 0, seconds: 0, cpuS: 0 };
  const hono = { url: floor.url, requests: 0, seconds: 0, cpuS: 0 };
  for (let i = 0; i < INTERLEAVED_S; i++) {
    for (const side of [gw, hono]) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const r = await httpLoad({
        url: side.url,
        headers: { "x-api-key": apiKey },
        concurrency: CONCURRENCY,
        durationS: 1,
      });
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      side.requests += r.requestsPerSecond * seconds;
      side.seconds += seconds;
      side.cpuS += (used.user + used.system) / 1e6;
    }
  }
  floor.close();
  const rate = (side: typeof gw) => side.requests / side.seconds;
  const cpuMs = (side: typeof gw) => ((side.cpuS * 1000) / side.requests).toFixed(3);
  console.log(
    `interleaved, ${INTERLEAVED_S} × 1 s each: gateway ${rate(gw).toFixed(0)} req/s, bare Hono ${rate(hono).toFixed(0)} req/s, ratio ${((100 * rate(gw)) / rate(hono)).toFixed(1)} %; CPU of this process per request (load generator included) gateway ${cpuMs(gw)} ms, bare Hono ${cpuMs(hono)} ms`,
  );
}

// The gateway's own connection is the caller, as in a real request, without HTTP in front.
const { nc } = gateway.deps;
const rpc = await closedLoop(CONCURRENCY, DURATION_S, async () => {
  await callRpc(nc, Rpc.ratesGet, { businessId, currency: "NGN" });
  return true;
});
console.log(
  `rates.get over NATS: ${rpc.perSecond.toFixed(0)} req/s, p50 ${rpc.p50Ms.toFixed(2)} ms, p99 ${rpc.p99Ms.toFixed(2)} ms, ${rpc.errors} errors`,
);
report({
  key: "pricing-rpc",
  label: "rates.get request/reply (pricing)",
  value: rpc.perSecond,
  unit: "req/s",
  p50Ms: rpc.p50Ms,
  p99Ms: rpc.p99Ms,
});

await gateway.stop();
await webhooks.stop();
await pricing.stop();
await infra.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(http.errors + half.errors + rpc.errors > 0 ? 1 : 0);
