import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { join } from "node:path";

export interface RunningProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
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
}

function launch(bin: string, args: string[], logFile: string, opts: LaunchOptions = {}): ChildProcess {
  const out = openSync(logFile, "a");
  return spawn(bin, args, { stdio: ["ignore", out, out], detached: opts.detached ?? false });
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });
}

export async function startNats(
  bin: string,
  dataDir: string,
  port?: number,
  opts?: LaunchOptions,
): Promise<RunningProcess> {
  const p = port ?? (await freePort());
  const dir = join(dataDir, `nats-${p}`);
  mkdirSync(dir, { recursive: true });
  const child = launch(
    bin,
    ["-a", "127.0.0.1", "-p", String(p), "-js", "-sd", dir],
    join(dataDir, `nats-${p}.log`),
    opts,
  );
  await waitForPort(p);
  return { url: `nats://127.0.0.1:${p}`, port: p, child, stop: stopper(child) };
}

export async function startFerret(
  bin: string,
  dataDir: string,
  port?: number,
  opts?: LaunchOptions,
): Promise<RunningProcess> {
  const p = port ?? (await freePort());
  const dir = join(dataDir, `ferretdb-${p}`);
  mkdirSync(dir, { recursive: true });
  const child = launch(
    bin,
    [
      "--handler=sqlite",
      `--sqlite-url=file:${dir}/`,
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${p}`,
      // Nothing may call the internet: no telemetry beacon, no debug listener.
      "--telemetry=disable",
      "--debug-addr=-",
      "--log-level=warn",
    ],
    join(dataDir, `ferretdb-${p}.log`),
    opts,
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
  const dir = join(dataDir, `mongod-${p}`);
  mkdirSync(dir, { recursive: true });
  const child = launch(
    bin,
    ["--bind_ip", "127.0.0.1", "--port", String(p), "--dbpath", dir],
    join(dataDir, `mongod-${p}.log`),
    opts,
  );
  await waitForPort(p);
  return { url: `mongodb://127.0.0.1:${p}/`, port: p, child, stop: stopper(child) };
}
