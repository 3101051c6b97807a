#!/usr/bin/env node
// Entry of `npm start` and `npm test` on a fresh clone: needs only Node and npm.
// Installs pnpm into .tools when it is not on PATH, installs the workspace, then hands over to
// scripts/start.ts or scripts/test.ts (which install nats-server / FerretDB if missing).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM_VERSION = "10.34.8";
const mode = process.argv[2];
if (mode !== "start" && mode !== "test") {
  console.error("usage: bootstrap.mjs start|test");
  process.exit(2);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function findPnpm() {
  const local = join(root, ".tools", "node_modules", ".bin", "pnpm");
  if (existsSync(local)) return local;
  const r = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (r.status === 0 && r.stdout.startsWith("10.")) return "pnpm";
  console.error(`[bootstrap] installing pnpm ${PNPM_VERSION} into .tools`);
  run("npm", [
    "install",
    "--prefix",
    ".tools",
    "--no-save",
    "--no-package-lock",
    "--no-audit",
    "--no-fund",
    `pnpm@${PNPM_VERSION}`,
  ]);
  return local;
}

const pnpm = findPnpm();
// turbo and the scripts after us look pnpm up on PATH.
process.env.PATH = `${join(root, ".tools", "node_modules", ".bin")}:${process.env.PATH ?? ""}`;
// turbo otherwise prints a telemetry notice on first use; it collects nothing for this project.
process.env.TURBO_TELEMETRY_DISABLED ??= "1";
const marker = join(root, "node_modules", ".modules.yaml");
const lock = join(root, "pnpm-lock.yaml");
if (!existsSync(marker) || statSync(lock).mtimeMs > statSync(marker).mtimeMs) {
  console.error("[bootstrap] installing dependencies");
  run(pnpm, ["install", "--frozen-lockfile"]);
}
// `node --import tsx` keeps it one process (the tsx CLI would add a second that relays signals), and
// signals are passed on rather than ending us first: the launcher drains the services and exits itself.
const child = spawn(
  process.execPath,
  ["--import", "tsx", join("scripts", `${mode}.ts`), ...process.argv.slice(3)],
  { cwd: root, stdio: "inherit" },
);
// Every signal that ends a process by default, not only Ctrl-C's: a process manager's SIGTERM, a closed
// terminal's SIGHUP. The child gets SIGTERM or SIGINT, the two it drains on.
const forward = (signal) => child.kill(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, forward);
// `npm start` runs us under `sh -c`; a shell that dies of the signal npm relays leaves us without a
// parent rather than signalled. Losing the parent that started us is a stop as well.
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(orphaned);
  forward("SIGTERM");
}, 500);
orphaned.unref();
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
