// Runs `npm start`'s launcher as a real process for e2e/launcher.test.ts and watches its process tree.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { findPostgres, freePort, keptPostgresBase, REPO_ROOT } from "@ramp/devinfra";
import { eventually } from "@ramp/devinfra/testing";
import { expect, inject } from "vitest";

/** Every process whose ancestry leads to `root`, read from /proc (Linux). */
function descendants(root: number): Map<number, string> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the parenthesised command name: state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parentOf.set(pid, ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const found = new Map<number, string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (found.has(pid) || (ppid !== root && !found.has(ppid))) continue;
      try {
        found.set(pid, readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
        grew = true;
      } catch {
        // ended
      }
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface LauncherRun {
  child: ChildProcess;
  port: number;
  stdout(): string;
  stderr(): string;
  /** Every descendant seen so far (pid → command line), including ones that have ended since. */
  seen: Map<number, string>;
  /** Its RAMP_DATA_DIR. */
  dataDir: string;
  /** Resolves with the exit code (or signal name) when the launcher ends. */
  exited: Promise<number | string>;
  /** The live descendant whose command line contains `needle`. */
  livePid(needle: string): number | undefined;
}

/** A fresh data folder for a launcher, inside this test run's. */
export const launcherDataDir = () => mkdtempSync(join(inject("testDataDir"), "launcher-"));

/**
 * How the launcher is run: `start` is scripts/start.ts itself; `bootstrap` is what `npm start` execs;
 * `npm` is `npm start` as an operator or a process manager runs it, its pid the one they signal.
 */
const ENTRY = {
  start: () => [process.execPath, "--import", "tsx", join(REPO_ROOT, "scripts", "start.ts")],
  bootstrap: () => [process.execPath, join(REPO_ROOT, "scripts", "bootstrap.mjs"), "start"],
  npm: () => ["npm", "start", "--silent", "--"],
} as const;

export interface LauncherOptions {
  via?: keyof typeof ENTRY;
  dataDir?: string;
  port?: number;
  args?: string[];
}

export async function runLauncher(
  env: Record<string, string>,
  opts: LauncherOptions = {},
): Promise<LauncherRun> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? launcherDataDir();
  const [command = "", ...entryArgs] = ENTRY[opts.via ?? "start"]();
  const child = spawn(command, [...entryArgs, ...(opts.args ?? [])], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      RAMP_INFRA: "local",
      RAMP_DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: "info",
      ...env,
    },
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const seen = new Map<number, string>();
  const watch = setInterval(() => {
    // An exited, unreaped process reads as an empty command line; keep what it was.
    for (const [pid, cmd] of descendants(child.pid!)) if (cmd) seen.set(pid, cmd);
  }, 200);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      clearInterval(watch);
      resolve(code ?? signal ?? "unknown");
    });
  });
  return {
    child,
    port,
    stdout: () => out,
    stderr: () => err,
    seen,
    dataDir,
    exited,
    livePid(needle) {
      for (const [pid, cmd] of descendants(child.pid!)) if (cmd.includes(needle)) return pid;
      return undefined;
    },
  };
}

export const SERVICES = ["pricing", "banking", "chain-watcher", "orders", "webhook-dispatcher", "gateway"];

/**
 * SIGKILL to the launcher and every descendant it had (for a test that failed half-way), then the
 * PostgreSQL cluster it kept outside the test's folder, if any (as root: see keptPostgresBase).
 */
export function killLeftovers(r: LauncherRun): void {
  r.child.kill("SIGKILL");
  for (const pid of r.seen.keys()) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  if (!findPostgres()) return;
  const cluster = keptPostgresBase(r.dataDir);
  if (!cluster.startsWith(r.dataDir)) rmSync(cluster, { recursive: true, force: true });
}

/**
 * The whole stack ran (NATS, the database, each service) and none of it is left: `withinMs` after the
 * launcher's exit (longer when the main process may exit before the stack it signalled has stopped).
 */
/** `servicesStarted`: whether every service was meant to have started (false: the launcher refused first). */
export async function expectNothingLeft(
  r: LauncherRun,
  withinMs = 5_000,
  servicesStarted = true,
): Promise<void> {
  const commands = [...r.seen.values()];
  // A start refused by the configuration check stops its infrastructure within moments, sometimes
  // between two looks at the process table: only a stack that ran must have been seen whole.
  if (servicesStarted) {
    expect(commands.some((c) => c.includes("nats-server"))).toBe(true);
    expect(commands.some((c) => c.includes("ferretdb") || c.includes("mongod"))).toBe(true);
  }
  for (const service of SERVICES) {
    expect(commands.some((c) => c.includes(`services/${service}/dist/main.mjs`))).toBe(servicesStarted);
  }
  const left = () => [...r.seen].filter(([pid]) => isAlive(pid)).map(([pid, cmd]) => `${pid} ${cmd}`);
  // tsx's esbuild helper notices its parent is gone within a moment; nothing may stay longer than that.
  await eventually(() => (left().length === 0 ? true : undefined), withinMs).catch(() => undefined);
  expect(left()).toEqual([]);
}
