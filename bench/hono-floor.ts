/**
 * The HTTP floor for bench/gateway-rates.ts: a bare Hono server on @hono/node-server (the gateway's
 * stack) answering the same rate JSON from a constant, under the same load. The gateway's figure over
 * this one is what authentication, validation, NATS and pricing cost.
 *
 *   pnpm exec tsx bench/hono-floor.ts
 *   BENCH_CONCURRENCY=64 BENCH_DURATION_S=15 pnpm exec tsx bench/hono-floor.ts
 */
import { startHonoFloor } from "./support/hono-floor-server.ts";
import { httpLoad } from "./support/http-load.ts";
import { envNumber, report } from "./support/report.ts";

const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);

const server = await startHonoFloor();
const r = await httpLoad({
  url: server.url,
  headers: { "x-api-key": "rk_floor" },
  concurrency: CONCURRENCY,
  durationS: DURATION_S,
});
console.log(
  `bare Hono static rate (${r.generator}): ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ${r.errors} errors`,
);
report({
  key: "hono-floor",
  label: `bare Hono, static rate (${r.generator})`,
  value: r.requestsPerSecond,
  unit: "req/s",
  p50Ms: r.p50Ms,
  p99Ms: r.p99Ms,
});
server.close();
process.exit(r.errors > 0 ? 1 : 0);
