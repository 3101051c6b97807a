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
import { REPO_ROOT } from "@ramp/devinfra";
import { type BenchFigure, envNumber, RESULT_PREFIX } from "./support/report.ts";
import { type BenchTable, buildTable, formatTable } from "./support/table.ts";

/** Floors first: they are what the figures after them are read against. */
const SCRIPTS = [
  "hono-floor.ts",
  "nats-floor.ts",
  "database-floor.ts",
  "gateway-rates.ts",
  "webhook-dispatch.ts",
  "order-creation.ts",
  "evm-logs.ts",
  "deposit-webhook.ts",
  "replicas.ts",
];
const DURATION_S = envNumber("BENCH_DURATION_S", 10);
/** Startup of local NATS and database plus the measured time, with room; past it a script is killed. */
const LIMIT_MS = (envNumber("BENCH_TIMEOUT_S", 120) + 3 * DURATION_S + 120) * 1000;

interface ScriptRun {
  script: string;
  ok: boolean;
  figures: BenchFigure[];
}

function runScript(script: string): Promise<ScriptRun> {
  return new Promise((resolve) => {
    const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "tsx"), [join(REPO_ROOT, "bench", script)], {
      cwd: REPO_ROOT,
      env: process.env,
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
      resolve({ script, ok: code === 0, figures });
    });
  });
}

const started = new Date();
const runs: ScriptRun[] = [];
for (const script of SCRIPTS) {
  process.stderr.write(`bench: ${script}\n`);
  runs.push(await runScript(script));
}

const table: BenchTable = buildTable(runs.flatMap((r) => r.figures));
const failed = runs.filter((r) => !r.ok).map((r) => r.script);
process.stdout.write(`${formatTable(table)}\n`);
if (failed.length > 0) process.stdout.write(`\nfailed or incomplete: ${failed.join(", ")}\n`);

const resultsPath = join(REPO_ROOT, "bench", "results.json");
writeFileSync(
  resultsPath,
  `${JSON.stringify(
    {
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
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
process.exit(failed.length > 0 ? 1 : 0);
