// `npm test`: typecheck → lint → import structure → every test, the order CI runs them in.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import {
  ensureChromium,
  ensureConsoleBuilt,
  ensureFerretDb,
  ensureNatsServer,
  ensurePostgres,
  TOOLS_DIR,
} from "@ramp/devinfra";
import { COUNTS_FILE, type Counts } from "./count-reporter.ts";

// A CI log is not a terminal, yet CI=true makes vitest colour its report; log readers that look for
// "Tests  504 passed" then find it split by escape codes. Plain text unless a person is watching.
const ENV = process.stdout.isTTY ? process.env : withoutColour(process.env);

function withoutColour(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // FORCE_COLOR beside NO_COLOR makes node warn on every child; NO_COLOR alone is enough.
  const { FORCE_COLOR: _ignored, ...rest } = env;
  return { ...rest, NO_COLOR: "1" };
}

function step(name: string, cmd: string, args: string[], after?: () => void) {
  const started = Date.now();
  process.stderr.write(`\n[test] ${name}\n`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: ENV });
  process.stderr.write(
    `[test] ${name}: ${r.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  // The summary comes last, after the step's own line: CI counts tests from the closing line.
  after?.();
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Install the infrastructure binaries up front, so a missing toolchain fails here with a clear message.
// FerretDB and PostgreSQL whatever the run's database is: e2e/local-database-postgres.test.ts starts
// FerretDB on PostgreSQL (the RAMP_LOCAL_DB=postgresql path) even when MONGODB_URI or mongod serves the rest.
ensureNatsServer(TOOLS_DIR);
ensureFerretDb(TOOLS_DIR);
ensurePostgres();
// The console's browser tests (e2e/console-*.test.ts) drive Debian's chromium.
ensureChromium();

step("typecheck", "pnpm", ["exec", "turbo", "run", "typecheck", "--output-logs=errors-only"]);
step("typecheck (root scripts)", "pnpm", ["exec", "tsc", "-p", "tsconfig.json"]);
step("lint", "pnpm", ["exec", "biome", "check", "--error-on-warnings", "."]);
// Import cycles, cross-service imports and imports back up a service's floors (.dependency-cruiser.cjs).
step("structure", "pnpm", ["run", "--silent", "check:structure"]);
// The browser tests drive the gateway's /console/, served from this build of the current source.
process.stderr.write("\n[test] web console build\n");
ensureConsoleBuilt({ always: true });
// vitest's own report, then one plain closing line (no colour codes) that a log reader finds whatever the
// terminal made of vitest's: the counts come from a reporter that prints nothing (count-reporter.ts).
rmSync(COUNTS_FILE, { force: true });
// The step is named "vitest", not "tests": its own "[test] <name>: ok in N s" line must not read like a
// test count of its own, and the plain closing line below is the only one that starts with "tests:".
step(
  "vitest",
  "pnpm",
  [
    "exec",
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=./scripts/count-reporter.ts",
    ...process.argv.slice(2),
  ],
  closingLine,
);

// One plain closing line and nothing else shaped like a runner's summary: CI readers know many runners'
// closing lines ("N tests, N failures" is ExUnit's), and a detail line shaped like one of those was read
// as a run of no test.
function closingLine() {
  if (!existsSync(COUNTS_FILE)) return;
  const { passed, failed, skipped } = JSON.parse(readFileSync(COUNTS_FILE, "utf8")) as Counts;
  process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
}
