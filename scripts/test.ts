// `npm test`: typecheck → lint → every test, the order CI runs them in.

import { spawnSync } from "node:child_process";
import { ensureFerretDb, ensureNatsServer, ensurePostgres, TOOLS_DIR } from "@ramp/devinfra";

function step(name: string, cmd: string, args: string[]) {
  const started = Date.now();
  process.stderr.write(`\n[test] ${name}\n`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: process.env });
  process.stderr.write(
    `[test] ${name}: ${r.status === 0 ? "ok" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Install the infrastructure binaries up front, so a missing toolchain fails here with a clear message.
// FerretDB and PostgreSQL whatever the run's database is: e2e/local-database-postgres.test.ts starts
// FerretDB on PostgreSQL (the RAMP_LOCAL_DB=postgresql path) even when MONGODB_URI or mongod serves the rest.
ensureNatsServer(TOOLS_DIR);
ensureFerretDb(TOOLS_DIR);
ensurePostgres();

step("typecheck", "pnpm", ["exec", "turbo", "run", "typecheck", "--output-logs=errors-only"]);
step("typecheck (root scripts)", "pnpm", ["exec", "tsc", "-p", "tsconfig.json"]);
step("lint", "pnpm", ["exec", "biome", "check", "--error-on-warnings", "."]);
step("tests", "pnpm", ["exec", "vitest", "run", ...process.argv.slice(2)]);
