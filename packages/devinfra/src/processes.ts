import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, openSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { join } from "node:path";
import { SERVICE_NAMES, type ServiceName } from "@ramp/contracts";
import {
  type NatsConfigOptions,
  type NatsCredentials,
  type NatsUser,
  type NkeyRef,
  renderNatsConfig,
} from "./nats-auth.ts";
import { markInUse } from "./stale-runs.ts";

export interface RunningProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Ports handed to a child that binds them later are picked below the kernel's ephemeral range
 * (32768–60999 here and on most Linux): a port from `listen(0)` is free when asked, but any outbound
 * connection (a Mongo pool, a NATS client) may take it as its local port before the child binds it, and
 * a service killed and restarted must find its old port again. Random picks keep two test workers apart.
 */
const PICK_FROM = 20_000;
const PICK_TO = 32_000;
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_TO - PICK_FROM));
    if (handedOut.has(port)) continue;
    if ((await canBind(port, "0.0.0.0")) && (await canBind(port, "127.0.0.1"))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${PICK_FROM} and ${PICK_TO} after 50 tries`);
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

export async function waitForPort(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
      s.connect(port, "127.0.0.1");
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

export interface LaunchOptions {
  /**
   * Own process group: a terminal's Ctrl-C then reaches only the launcher, which stops the services
   * before the infrastructure they are draining into.
   */
  detached?: boolean;
  /**
   * Keep the data for the next start: the server's folder is named for the server alone (`nats`,
   * `ferretdb`, `postgres`) and reused, instead of a fresh `<server>-<port>` folder per start.
   */
  keep?: boolean;
}

/** The folder a server stores into under `dataDir`: its own name when kept, else one per port. */
export function serverDir(dataDir: string, server: string, port: number, opts: LaunchOptions = {}): string {
  return join(dataDir, opts.keep ? server : `${server}-${port}`);
}

/** Runs a server whose folder is `logFile` without `.log`, and marks that folder as used by it and us. */
export function launch(
  bin: string,
  args: string[],
  logFile: string,
  opts: LaunchOptions = {},
  env: Record<string, string> = {},
): ChildProcess {
  const out = openSync(logFile, "a");
  const child = spawn(bin, args, {
    stdio: ["ignore", out, out],
    detached: opts.detached ?? false,
    env: { ...process.env, ...env },
  });
  markInUse(logFile.replace(/\.log$/, ""), [process.pid, child.pid]);
  return child;
}

export function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });
}

export interface NatsOptions extends LaunchOptions {
  /** Start with one user per service (permissions from contracts) and no anonymous access. */
  credentials?: NatsCredentials;
  /** Users beyond the services (tests only). */
  extraUsers?: readonly NatsUser[];
}

export function writeNatsConfig(
  dir: string,
  credentials: NatsCredentials,
  rest: Omit<NatsConfigOptions, "services" | "storeDir">,
): string {
  const services = Object.fromEntries(
    SERVICE_NAMES.map((svc) => [svc, { publicKey: credentials[svc].publicKey }]),
  ) as Record<ServiceName, NkeyRef>;
  const conf = join(dir, "nats.conf");
  writeFileSync(conf, renderNatsConfig({ ...rest, storeDir: dir, services }));
  return conf;
}

export async function startNats(
  bin: string,
  dataDir: string,
  port?: number,
  opts: NatsOptions = {},
): Promise<RunningProcess> {
  const p = port ?? (await freePort());
  const dir = serverDir(dataDir, "nats", p, opts);
  mkdirSync(dir, { recursive: true });
  let args = ["-a", "127.0.0.1", "-p", String(p), "-js", "-sd", dir];
  if (opts.credentials) {
    const config = { listen: `127.0.0.1:${p}`, extraUsers: opts.extraUsers ?? [] };
    args = ["-c", writeNatsConfig(dir, opts.credentials, config)];
  }
  const child = launch(bin, args, `${dir}.log`, opts);
  await waitForPort(p);
  return { url: `nats://127.0.0.1:${p}`, port: p, child, stop: stopper(child) };
}

export interface FerretOptions extends LaunchOptions {
  /** Store in this PostgreSQL database (its URL carries a password, so it goes through the environment); else SQLite files. */
  postgresqlUrl?: string;
}

export async function startFerret(
  bin: string,
  dataDir: string,
  port?: number,
  opts: FerretOptions = {},
): Promise<RunningProcess> {
  const p = port ?? (await freePort());
  const dir = serverDir(dataDir, "ferretdb", p, opts);
  mkdirSync(dir, { recursive: true });
  const backend: { args: string[]; env: Record<string, string> } = opts.postgresqlUrl
    ? { args: ["--handler=postgresql"], env: { FERRETDB_POSTGRESQL_URL: opts.postgresqlUrl } }
    : { args: ["--handler=sqlite", `--sqlite-url=file:${dir}/`], env: {} };
  const child = launch(
    bin,
    [
      ...backend.args,
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${p}`,
      // Nothing may call the internet: no telemetry beacon, no debug listener.
      "--telemetry=disable",
      "--debug-addr=-",
      "--log-level=warn",
    ],
    `${dir}.log`,
    opts,
    // Go collects its garbage when the heap has doubled (GOGC=100); FerretDB's live heap is a few tens of
    // MB, and at that pace its collector took an eighth of its CPU under deposits at 30/s (perf). Letting
    // the heap grow fivefold first took FerretDB from 43 % to 37 % of a core there, a few more MB held.
    { ...backend.env, GOGC: "400" },
  );
  await waitForPort(p);
  return { url: `mongodb://127.0.0.1:${p}/`, port: p, child, stop: stopper(child) };
}

export async function startMongod(
  bin: string,
  dataDir: string,
  port?: number,
  opts?: LaunchOptions,
): Promise<RunningProcess> {
  const p = port ?? (await freePort());
  const dir = serverDir(dataDir, "mongod", p, opts);
  mkdirSync(dir, { recursive: true });
  const child = launch(
    bin,
    ["--bind_ip", "127.0.0.1", "--port", String(p), "--dbpath", dir],
    `${dir}.log`,
    opts,
  );
  await waitForPort(p);
  return { url: `mongodb://127.0.0.1:${p}/`, port: p, child, stop: stopper(child) };
}
