/**
 * The stack exactly as `npm start` runs it (scripts/start.ts: local NATS and database, every service
 * its own process, the sandbox business and market rates), on the port and data folder given, for
 * load generators in processes of their own to measure from outside.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@ramp/devinfra";
import { loadSandbox } from "../../scripts/launcher/sandbox-store.ts";
import { allPids, procStat } from "./process-cpu.ts";

export interface StartedStack {
  gatewayUrl: string;
  apiKey: string;
  /** The launcher's process id (its services are its children). */
  pid: number;
  adminToken: string;
  /** SIGTERM to the launcher, which drains every service and stops the infrastructure. */
  stop(): Promise<void>;
}

export interface StackOptions {
  port: number;
  healthPort: number;
  dataDir: string;
  /** More settings for the launcher and (those a service reads) its services. */
  env?: Record<string, string>;
  startTimeoutS?: number;
}

const READY_LINE = "Ramp is running";

export async function startStack(opts: StackOptions): Promise<StartedStack> {
  const adminToken = "bench-admin-token-0123456789";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", join("scripts", "start.ts")], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(opts.port),
      HEALTH_PORT: String(opts.healthPort),
      RAMP_DATA_DIR: opts.dataDir,
      // A clean start each run: figures do not depend on what earlier runs left.
      RAMP_RESET: "1",
      ADMIN_TOKEN: adminToken,
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let output = "";
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`npm start not ready after ${opts.startTimeoutS ?? 120} s:\n${output.slice(-2000)}`),
        ),
      (opts.startTimeoutS ?? 120) * 1000,
    );
    let isReady = false;
    const onData = (d: Buffer) => {
      // Read to the end either way: a full pipe would stall the services' logging.
      if (isReady) return;
      output += d.toString();
      if (output.length > 100_000) output = output.slice(-50_000);
      if (output.includes(READY_LINE)) {
        isReady = true;
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited ${code} before it was ready:\n${output.slice(-2000)}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  const seed = loadSandbox(opts.dataDir);
  if (!seed) {
    await stop();
    throw new Error(`npm start kept no sandbox business in ${opts.dataDir}`);
  }
  return {
    gatewayUrl: `http://127.0.0.1:${opts.port}`,
    apiKey: seed.apiKey,
    adminToken,
    pid: child.pid ?? 0,
    stop,
  };
}

/**
 * The launcher's service processes (`services/<name>/dist/main.mjs`, children of `launcherPid`) by
 * service name, with its nats-server and FerretDB, from Linux's /proc (empty elsewhere): whose CPU
 * the figures cost.
 */
export function servicePids(launcherPid: number): Record<string, number> {
  const found: Record<string, number> = {};
  for (const pid of allPids()) {
    if (Number(procStat(pid)?.[1]) !== launcherPid) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const service =
        /services\/([a-z-]+)\/dist\/main\.mjs/.exec(cmd)?.[1] ??
        /\/(nats-server|ferretdb|postgres)\0/.exec(cmd)?.[1];
      if (service) found[service] = pid;
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
