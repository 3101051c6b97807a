/**
 * `npm run bench`: every benchmark, one after another, each in its own process with a hard time limit,
 * then ONE table — each figure beside its floor measured in this same run, and the ratio — printed and
 * written to bench/results.json. Figures from different runs or machines are not compared.
 *
 *   npm run bench
 *   BENCH_DURATION_S=1 BENCH_EVENTS=20 BENCH_DB_OPS=20 BENCH_EVM_LOGS=200 npm run bench   (a smoke run: seconds)
 *
 * Durations and sizes are the scripts' own variables (BENCH_DURATION_S, BENCH_CONCURRENCY, BENCH_ORDER_CONCURRENCY,
 * BENCH_EVENTS, BENCH_SLOW_EVENTS, BENCH_DB_OPS, BENCH_TIMEOUT_S, BENCH_EVM_LOGS,
 * BENCH_EVM_WATCHED), passed through. HTTP load goes only to 127.0.0.1.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { type BundleTarget, ensureBundles, ensureServiceBundles, REPO_ROOT } from "@ramp/devinfra";
import { formatLoad, type MachineLoad, machineLoad, maxQuietLoad } from "./support/machine-load.ts";
import { type BenchFigure, envNumber, RESULT_PREFIX } from "./support/report.ts";
import { type BenchTable, buildTable, formatTable } from "./support/table.ts";

/**
 * Floors first: they are what the figures after them are read against. external.ts measures the HTTP
 * rows from outside `npm start`'s processes (and has its own bare Hono floor); the in-process scripts
 * after it are kept for what they count (writes, CPU per operation), not for their rates. Others
 * (gateway-rates.ts, replicas.ts, order-profile.ts, growth.ts) run alone.
 */
const SCRIPTS = [
  "nats-floor.ts",
  "database-floor.ts",
  "external.ts",
  "order-creation.ts",
  "webhook-dispatch.ts",
  "deposit-webhook.ts",
];
/**
 * Sizes each script takes in this run unless the environment sets them, so the whole run stays under
 * 3 minutes: the in-process scripts are here for their counts and CPU per operation, which a few
 * seconds settle; the external rows keep their full lengths.
 */
const RUN_DEFAULTS: Record<string, Record<string, string>> = {
  "nats-floor.ts": { BENCH_DURATION_S: "5" },
  "database-floor.ts": { BENCH_DB_OPS: "200" },
  "external.ts": {
    BENCH_DURATION_S: "6",
    BENCH_ORDER_WARMUP_S: "4",
    BENCH_ORDER_DURATION_S: "8",
    BENCH_CURVE_STEP_S: "2",
  },
  "order-creation.ts": { BENCH_DURATION_S: "3", BENCH_ORDERS_COUNTED: "20" },
  "webhook-dispatch.ts": { BENCH_EVENTS: "1000", BENCH_SLOW_EVENTS: "32" },
  "deposit-webhook.ts": { BENCH_DURATION_S: "2", BENCH_DB_FLOOR_S: "2" },
};
const DURATION_S = envNumber("BENCH_DURATION_S", 10);

/**
 * Each script runs as a bundle, as the services do (about 1 s to load instead of several through tsx
 * for the scripts that hold every service in their own process), built first: a build's seconds count
 * in the run's time.
 */
const bundleOf = (script: string): BundleTarget => ({
  entry: join(REPO_ROOT, "bench", script),
  bundle: join(REPO_ROOT, "bench", "dist", script.replace(/\.ts$/, ".mjs")),
});
/** Startup of local NATS and database plus the measured time, with room; past it a script is killed. */
const LIMIT_MS = (envNumber("BENCH_TIMEOUT_S", 120) + 3 * DURATION_S + 120) * 1000;

interface ScriptRun {
  script: string;
  ok: boolean;
  figures: BenchFigure[];
  /** The machine's load as the script started: the others on it share its cores. */
  loadBefore: MachineLoad;
}

function runScript(script: string): Promise<ScriptRun> {
  const loadBefore = machineLoad();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--enable-source-maps", bundleOf(script).bundle], {
      cwd: REPO_ROOT,
      env: { ...RUN_DEFAULTS[script], ...process.env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const figures: BenchFigure[] = [];
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith(RESULT_PREFIX))
          figures.push(JSON.parse(line.slice(RESULT_PREFIX.length)) as BenchFigure);
        else process.stderr.write(`  ${script}: ${line}\n`);
      }
    });
    const killer = setTimeout(() => {
      process.stderr.write(`  ${script}: still running after ${LIMIT_MS / 1000} s, killed\n`);
      child.kill("SIGKILL");
    }, LIMIT_MS);
    child.on("exit", (code) => {
      clearTimeout(killer);
      resolve({ script, ok: code === 0, figures, loadBefore });
    });
  });
}

const started = new Date();
const loadBefore = machineLoad();
const quiet = loadBefore.loadavg[0] <= maxQuietLoad(loadBefore.cores);
process.stderr.write(`bench: ${formatLoad(loadBefore)} before the run\n`);
await ensureServiceBundles();
await ensureBundles(SCRIPTS.map(bundleOf));
const runs: ScriptRun[] = [];
for (const script of SCRIPTS) {
  process.stderr.write(`bench: ${script} (${formatLoad(machineLoad())})\n`);
  const t0 = performance.now();
  runs.push(await runScript(script));
  process.stderr.write(`bench: ${script} took ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
}
const loadAfter = machineLoad();

const table: BenchTable = buildTable(runs.flatMap((r) => r.figures));
const failed = runs.filter((r) => !r.ok).map((r) => r.script);
process.stdout.write(`${formatTable(table)}\n`);
if (failed.length > 0) process.stdout.write(`\nfailed or incomplete: ${failed.join(", ")}\n`);

process.stdout.write(
  `\nmachine: ${formatLoad(loadBefore)} before, ${formatLoad(loadAfter)} after; ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s\n`,
);

const resultsPath = join(REPO_ROOT, "bench", "results.json");
if (quiet) {
  writeFileSync(
    resultsPath,
    `${JSON.stringify(
      {
        startedAt: started.toISOString(),
        finishedAt: new Date().toISOString(),
        machine: { cpus: loadBefore.cores, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
        load: {
          before: loadBefore,
          after: loadAfter,
          byScript: runs.map((r) => ({ script: r.script, ...r.loadBefore })),
        },
        durationS: DURATION_S,
        failed,
        rows: table.rows,
        figures: runs.flatMap((r) => r.figures),
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nwritten to ${resultsPath}\n`);
} else {
  process.stdout.write(
    `\nNOT written to ${resultsPath}: the 1-minute load was ${loadBefore.loadavg[0]} before the run, above ${maxQuietLoad(loadBefore.cores)} (BENCH_MAX_LOAD; default half the cores). Other work shared the cores, so these figures are not the system's own; run again on a quiet machine.\n`,
  );
}
process.exit(failed.length > 0 ? 1 : 0);
