/**
 * The HTTP figures as a user or a load-testing tool sees them: the stack started exactly as `npm start`
 * starts it (every service its own process, on BENCH_PORT, data in .data/bench-external of this
 * checkout), driven by a load generator in a process of its own (wrk, else autocannon: see
 * support/http-load.ts), beside the same run's bare Hono floor, also a process of its own.
 *
 * - `GET /pub/v2/rate`, BENCH_CONCURRENCY (32) connections, BENCH_DURATION_S; then at a fixed half of
 *   that rate (latency from each request's due time, a fixed-rate generator in its own process).
 * - `POST /pub/v2/offramp`, BENCH_ORDER_CONCURRENCY (32) connections, BENCH_ORDER_DURATION_S (15), each
 *   body unique (its `description`), after BENCH_ORDER_WARMUP_S (10) of the same load that is not
 *   counted: a service just started runs its order path as cold code (V8 compiles the hot functions
 *   after many calls), and its CPU per order halves over its first 20 s of this load.
 * - The overload curve of order creation: fixed rates of 1×, 2× and 3× what it just sustained, each
 *   BENCH_CURVE_STEP_S (5): answered/s, shed/s (429/503), p50 and p99 of the answered.
 * - What each costs in CPU: the gateway's per rate request, every service's per order (from /proc).
 * - Bare Hono again with 10, 20 and 40 µs of CPU work added per request (support/floor-curve.ts), each
 *   BENCH_FLOOR_CURVE_S (3): where the gateway's CPU per request sits on that curve is the work of ours it
 *   carries, read apart from what serving HTTP costs a server that does work.
 *
 * `BENCH_PROFILE=<service>` (gateway, orders, chain-watcher, …) runs that service under V8's CPU profiler
 * (support/cpu-prof-preload.mjs: Node takes no --cpu-prof in NODE_OPTIONS) and prints its self time
 * while the rate path is driven, then while offramps are; `BENCH_PROFILE_KEEP=1` keeps the profile file.
 *
 *   pnpm exec tsx bench/external.ts
 *   BENCH_DURATION_S=3 BENCH_ORDER_DURATION_S=3 BENCH_CURVE_STEP_S=2 pnpm exec tsx bench/external.ts
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceName } from "@ramp/contracts";
import { DATA_DIR, REPO_ROOT, serviceBundle } from "@ramp/devinfra";
import { startListening } from "./support/child.ts";
import { formatProfile, monotonicUs, summariseProfiles } from "./support/cpu-profile.ts";
import { equivalentWorkUs, FLOOR_WORK_STEPS_US, measureHonoFloor } from "./support/floor-curve.ts";
import { httpAtRate, httpLoad, ID_PLACEHOLDER } from "./support/http-load.ts";
import { servicePids, startStack } from "./support/npm-start.ts";
import { npmStartBody } from "./support/order-bodies.ts";
import {
  cpuMeter,
  formatCpu,
  msPerOperation,
  processTree,
  syscallMeter,
  syscalls,
  syscallsPer,
} from "./support/process-cpu.ts";
import { envNumber, report } from "./support/report.ts";

const CONCURRENCY = envNumber("BENCH_CONCURRENCY", 32);
/**
 * Orders under way at once. A closed loop answers at most this many per order's latency (16 at 52–58 ms
 * is 275–310/s, whatever the stack could take), so it measures capacity only when it holds enough to
 * keep every stage busy: 32, as many as the rate row's connections (on 2026-11-29, c=16 gave 271 and
 * 307/s, c=32 358 and 407/s, alternating; the overload curve answered 378–449/s offered 2× either way).
 */
const ORDER_CONCURRENCY = envNumber("BENCH_ORDER_CONCURRENCY", 32);
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
const ORDER_DURATION_S = envNumber("BENCH_ORDER_DURATION_S", 15);
const ORDER_WARMUP_S = envNumber("BENCH_ORDER_WARMUP_S", 10);
const CURVE_STEP_S = envNumber("BENCH_CURVE_STEP_S", 5);
/** Each point of bare Hono's work curve: short, since it only has to place the gateway on it. */
const FLOOR_CURVE_S = envNumber("BENCH_FLOOR_CURVE_S", 3);
const PORT = envNumber("BENCH_PORT", 9400);
/** A service to run under V8's CPU profiler (support/cpu-prof-preload.mjs), e.g. `gateway`. */
const PROFILE = process.env.BENCH_PROFILE;
let failures = 0;
/** A process's kernel time per request, in microseconds, from its kernel share of a core. */
const kernelUs = (kernelPercent: number | undefined, perSecond: number) => {
  const ms = msPerOperation(kernelPercent, perSecond);
  return ms === undefined ? "?" : (ms * 1000).toFixed(1);
};

// The bare Hono floor in a process of its own, as the gateway is one under `npm start`.
const floor = await startListening("bench/support/hono-floor-main.ts", { PORT: String(PORT + 50) });
const floorCpu = cpuMeter({ hono: floor.child.pid }, "bench");
const floorCalls = syscalls(floor.child.pid);
const honoLoad = await httpLoad({
  url: floor.url,
  headers: { "x-api-key": "rk_floor" },
  concurrency: CONCURRENCY,
  durationS: DURATION_S,
});
const floorShares = floorCpu.stop().processes.find((p) => p.name === "hono");
const floorCallsText = syscallsPer(
  floorCalls,
  syscalls(floor.child.pid),
  honoLoad.requestsPerSecond * DURATION_S,
);
failures += honoLoad.errors;
console.log(
  `bare Hono, own process (${honoLoad.generator}, ${CONCURRENCY} connections): ${honoLoad.requestsPerSecond.toFixed(0)} req/s, p50 ${honoLoad.p50Ms.toFixed(2)} ms, p99 ${honoLoad.p99Ms.toFixed(2)} ms, ${honoLoad.errors} errors; ${floorCallsText}`,
);
report({
  key: "hono-floor",
  label: `bare Hono, static rate JSON, own process (${honoLoad.generator})`,
  value: honoLoad.requestsPerSecond,
  unit: "req/s",
  p50Ms: honoLoad.p50Ms,
  p99Ms: honoLoad.p99Ms,
});

const floorCpuMs = msPerOperation(floorShares?.percent, honoLoad.requestsPerSecond);
if (floorCpuMs !== undefined) {
  report({
    key: "hono-cpu-per-request",
    label: `CPU per request, bare Hono process (kernel ${kernelUs(floorShares?.kernelPercent, honoLoad.requestsPerSecond)} µs)`,
    value: floorCpuMs,
    unit: "ms/request",
  });
}

// The same floor with fixed work added per request: what serving HTTP costs a server that works.
const curve: { workUs: number; cpuMs: number }[] = [];
if (floorCpuMs !== undefined) curve.push({ workUs: 0, cpuMs: floorCpuMs });
for (const workUs of FLOOR_WORK_STEPS_US) {
  const point = await measureHonoFloor({
    port: PORT + 51,
    workUs,
    concurrency: CONCURRENCY,
    durationS: FLOOR_CURVE_S,
  });
  failures += point.load.errors;
  const kernel = point.kernelMsPerRequest === undefined ? "?" : (point.kernelMsPerRequest * 1000).toFixed(1);
  console.log(
    `bare Hono with ${workUs} µs of work per request (${point.load.generator}, ${CONCURRENCY} connections, ${FLOOR_CURVE_S} s): ${point.load.requestsPerSecond.toFixed(0)} req/s, CPU ${((point.cpuMsPerRequest ?? Number.NaN) * 1000).toFixed(1)} µs per request (kernel ${kernel} µs); ${point.syscallsText}`,
  );
  report({
    key: `hono-floor-work-${workUs}`,
    label: `bare Hono with ${workUs} µs of CPU work added per request, own process (${point.load.generator})`,
    value: point.load.requestsPerSecond,
    unit: "req/s",
    p50Ms: point.load.p50Ms,
    p99Ms: point.load.p99Ms,
  });
  if (point.cpuMsPerRequest !== undefined) curve.push({ workUs, cpuMs: point.cpuMsPerRequest });
}

mkdirSync(DATA_DIR, { recursive: true });
const dataDir = join(DATA_DIR, "bench-external");
const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), "ramp-prof-")) : undefined;
const stack = await startStack({
  port: PORT,
  healthPort: PORT + 10,
  dataDir,
  env: {
    // Measures the system, not the per-key limiter.
    RATE_LIMIT_PER_SECOND: "0",
    ...(profileDir
      ? {
          NODE_OPTIONS: `--import ${join(REPO_ROOT, "bench", "support", "cpu-prof-preload.mjs")}`,
          BENCH_PROFILE_MATCH: serviceBundle(PROFILE as ServiceName),
          BENCH_PROFILE_DIR: profileDir,
        }
      : {}),
  },
});
// The launcher relays every service's log lines, so its CPU is part of what a request costs here.
const { postgres, ...pids }: Record<string, number> = { ...servicePids(stack.pid), launcher: stack.pid };
// PostgreSQL (FerretDB's storage, the local default) works in one backend process per connection.
const metered = { ...pids, ...(postgres ? { postgresql: () => processTree(postgres) } : {}) };
const NOT_SERVICES = new Set(["launcher", "nats-server", "ferretdb", "postgresql", "bench"]);
console.log(`npm start on ${stack.gatewayUrl}: ${Object.keys(pids).join(", ")}`);

try {
  const rate = {
    url: `${stack.gatewayUrl}/pub/v2/rate?currency=NGN`,
    headers: { "x-api-key": stack.apiKey },
  };
  // JIT, connection pools and the gateway's copy of the rate warm before anything is counted.
  await httpLoad({ ...rate, concurrency: CONCURRENCY, durationS: Math.min(2, DURATION_S) });

  const rateWindow = { fromUs: monotonicUs(), toUs: 0 };
  const rateCpu = cpuMeter(metered, "bench");
  const gatewayCalls = syscalls(pids.gateway);
  const r = await httpLoad({ ...rate, concurrency: CONCURRENCY, durationS: DURATION_S });
  const rateShares = rateCpu.stop();
  const gatewayCallsText = syscallsPer(
    gatewayCalls,
    syscalls(pids.gateway),
    r.requestsPerSecond * DURATION_S,
  );
  rateWindow.toUs = monotonicUs();
  failures += r.errors;
  console.log(
    `GET /pub/v2/rate (${r.generator}, ${CONCURRENCY} connections): ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, ${r.errors} errors; ${formatCpu(rateShares)}; gateway's ${gatewayCallsText}`,
  );
  report({
    key: "gateway-rates",
    label: `GET /pub/v2/rate, npm start processes (${r.generator}, c=${CONCURRENCY})`,
    value: r.requestsPerSecond,
    unit: "req/s",
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
  });
  const gatewayShares = rateShares.processes.find((p) => p.name === "gateway");
  const cpuMs = msPerOperation(gatewayShares?.percent, r.requestsPerSecond);
  if (cpuMs !== undefined) {
    report({
      key: "gateway-cpu-per-rate",
      label: `CPU per GET /pub/v2/rate, gateway process (kernel ${kernelUs(gatewayShares?.kernelPercent, r.requestsPerSecond)} µs)`,
      value: cpuMs,
      unit: "ms/request",
    });
    const work = equivalentWorkUs(curve, cpuMs);
    if (work !== undefined) {
      console.log(
        `the gateway's CPU per rate request is bare Hono's with ${work.toFixed(1)} µs of work added per request`,
      );
      report({
        key: "gateway-equivalent-work",
        label: "GET /pub/v2/rate: the work per request that gives bare Hono the gateway's CPU per request",
        value: work,
        unit: "µs/request",
      });
    } else {
      const points = curve.map((p) => `${p.workUs} µs → ${(p.cpuMs * 1000).toFixed(1)} µs`).join(", ");
      console.log(
        `the gateway's CPU per rate request (${(cpuMs * 1000).toFixed(1)} µs) has no place on bare Hono's curve in this run (work added → CPU per request: ${points})`,
      );
    }
  }

  const halfRate = Math.max(1, Math.round(r.requestsPerSecond / 2));
  const half = await httpAtRate({
    ...rate,
    concurrency: CONCURRENCY,
    durationS: DURATION_S,
    perSecond: halfRate,
  });
  failures += half.errors;
  console.log(
    `GET /pub/v2/rate at a fixed ${halfRate} req/s: ${half.perSecond.toFixed(0)} answered/s, p50 ${half.p50Ms.toFixed(2)} ms, p99 ${half.p99Ms.toFixed(2)} ms, ${half.errors} errors`,
  );
  // The same generator at the same rate against bare Hono: the p99 that the generator and the machine
  // allow at all (its own pauses count in every figure it reports).
  const floorHalf = await httpAtRate({
    url: floor.url,
    headers: { "x-api-key": "rk_floor" },
    concurrency: CONCURRENCY,
    durationS: DURATION_S,
    perSecond: halfRate,
  });
  floor.child.kill("SIGTERM");
  console.log(
    `bare Hono at the same fixed ${halfRate} req/s: ${floorHalf.perSecond.toFixed(0)} answered/s, p50 ${floorHalf.p50Ms.toFixed(2)} ms, p99 ${floorHalf.p99Ms.toFixed(2)} ms, ${floorHalf.errors} errors`,
  );
  report({
    key: "hono-floor-half-load",
    label: `bare Hono at the same fixed rate, ${halfRate} req/s (fixed-rate process)`,
    value: floorHalf.perSecond,
    unit: "req/s",
    p50Ms: floorHalf.p50Ms,
    p99Ms: floorHalf.p99Ms,
  });
  report({
    key: "gateway-rates-half-load",
    label: `GET /pub/v2/rate at a fixed half of that rate, ${halfRate} req/s (fixed-rate process)`,
    value: half.perSecond,
    unit: "req/s",
    p50Ms: half.p50Ms,
    p99Ms: half.p99Ms,
  });

  const offramp = {
    url: `${stack.gatewayUrl}/pub/v2/offramp`,
    method: "POST" as const,
    headers: { "x-api-key": stack.apiKey, "content-type": "application/json" },
    body: JSON.stringify(npmStartBody(`bench ${ID_PLACEHOLDER}`)),
  };
  if (ORDER_WARMUP_S > 0) {
    const warm = await httpLoad({ ...offramp, concurrency: ORDER_CONCURRENCY, durationS: ORDER_WARMUP_S });
    failures += warm.errors;
    console.log(
      `POST /pub/v2/offramp warm-up, not counted (${ORDER_WARMUP_S} s): ${warm.requestsPerSecond.toFixed(1)} orders/s, ${warm.errors} errors`,
    );
  }
  const orderWindow = { fromUs: monotonicUs(), toUs: 0 };
  const orderCpu = cpuMeter(metered, "bench");
  const orderCalls = syscallMeter(metered);
  const o = await httpLoad({ ...offramp, concurrency: ORDER_CONCURRENCY, durationS: ORDER_DURATION_S });
  const orderShares = orderCpu.stop();
  orderWindow.toUs = monotonicUs();
  failures += o.errors;
  console.log(
    `POST /pub/v2/offramp (${o.generator}, ${ORDER_CONCURRENCY} connections, ${ORDER_DURATION_S} s): ${o.requestsPerSecond.toFixed(1)} orders/s, p50 ${o.p50Ms.toFixed(1)} ms, p99 ${o.p99Ms.toFixed(1)} ms, ${o.errors} errors; ${formatCpu(orderShares)}`,
  );
  const orderCount = o.requestsPerSecond * ORDER_DURATION_S;
  console.log(`  system calls per order, writes/reads: ${orderCalls.stop(orderCount)}`);
  report({
    key: "offramps-external",
    label: `POST /pub/v2/offramp, npm start processes (${o.generator}, c=${ORDER_CONCURRENCY}, ${ORDER_DURATION_S} s)`,
    value: o.requestsPerSecond,
    unit: "orders/s",
    p50Ms: o.p50Ms,
    p99Ms: o.p99Ms,
  });
  const servicesShare = orderShares.processes
    .filter((p) => !NOT_SERVICES.has(p.name))
    .reduce((sum, p) => sum + p.percent, 0);
  report({
    key: "offramp-cpu-per-order",
    label: "CPU per POST /pub/v2/offramp, the six service processes together",
    value: (servicesShare * 10) / o.requestsPerSecond,
    unit: "ms/order",
  });

  // Past capacity: what is answered, what is refused, and how long the answered wait.
  const sustained = Math.max(1, o.requestsPerSecond);
  for (const times of [1, 2, 3]) {
    const offered = Math.round(sustained * times);
    const c = await httpAtRate({ ...offramp, concurrency: 512, durationS: CURVE_STEP_S, perSecond: offered });
    console.log(
      `POST /pub/v2/offramp offered ${offered}/s (${times}× sustained): answered ${c.perSecond.toFixed(1)}/s, shed ${c.shedPerSecond.toFixed(1)}/s, p50 ${c.p50Ms.toFixed(1)} ms, p99 ${c.p99Ms.toFixed(1)} ms, ${c.errors} other failures`,
    );
    report({
      key: `offramp-offered-${times}x`,
      label: `POST /pub/v2/offramp offered at a fixed ${offered}/s (${times}× sustained): shed ${c.shedPerSecond.toFixed(1)}/s, other failures ${c.errors}`,
      value: c.perSecond,
      unit: "answered/s",
      p50Ms: c.p50Ms,
      p99Ms: c.p99Ms,
    });
  }

  if (profileDir && PROFILE) {
    await stack.stop();
    const pid = pids[PROFILE];
    const file = readdirSync(profileDir).find((f) => f.includes(`.${pid}.`));
    if (file) {
      const profile = JSON.parse(readFileSync(join(profileDir, file), "utf8"));
      for (const [what, window] of [
        ["GET /pub/v2/rate", rateWindow],
        ["POST /pub/v2/offramp", orderWindow],
      ] as const) {
        console.log(
          `${PROFILE}'s CPU profile while ${what} was driven:\n${formatProfile(summariseProfiles([profile], window), 25)}`,
        );
      }
      if (process.env.BENCH_PROFILE_KEEP === "1")
        console.log(
          `profile kept: ${join(profileDir, file)} (rate window ${rateWindow.fromUs}–${rateWindow.toUs} µs)`,
        );
    } else console.log(`no profile of ${PROFILE} (pid ${pid}) in ${profileDir}`);
  }
} finally {
  floor.child.kill("SIGTERM");
  await stack.stop();
  // BENCH_PROFILE_KEEP=1 leaves the .cpuprofile for a closer look (Chrome DevTools opens it).
  if (profileDir && process.env.BENCH_PROFILE_KEEP !== "1")
    rmSync(profileDir, { recursive: true, force: true });
}
process.exit(failures > 0 ? 1 : 0);
