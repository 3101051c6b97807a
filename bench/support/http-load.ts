/**
 * HTTP load against 127.0.0.1 for a fixed time: `wrk` when it is installed (a C load generator that
 * does not compete with the server for Node's event loop), otherwise keep-alive fetch loops in this
 * process. Either way it stops by itself after `durationS`.
 */
import { spawn, spawnSync } from "node:child_process";
import { closedLoop, type LoopResult } from "./closed-loop.ts";
import { openLoop } from "./open-loop.ts";

export interface HttpLoadOptions {
  url: string;
  headers?: Record<string, string>;
  concurrency: number;
  durationS: number;
}

export interface HttpLoadResult {
  generator: "wrk" | "node";
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx answers and socket errors: a run with any is not a valid figure. */
  errors: number;
}

const hasWrk = () => spawnSync("wrk", ["--version"], { encoding: "utf8" }).error === undefined;

export function httpLoad(opts: HttpLoadOptions): Promise<HttpLoadResult> {
  if (!new URL(opts.url).hostname.startsWith("127.")) throw new Error("load is only ever aimed at 127.0.0.1");
  return hasWrk() ? wrkLoad(opts) : nodeLoad(opts);
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

function latencyMs(output: string, percentile: string): number {
  const m = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(output);
  return m?.[1] && m[2] ? Number(m[1]) * (UNIT_MS[m[2]] ?? Number.NaN) : Number.NaN;
}

async function wrkLoad(opts: HttpLoadOptions): Promise<HttpLoadResult> {
  const args = [
    "--latency",
    "-t",
    String(Math.min(2, opts.concurrency)),
    "-c",
    String(opts.concurrency),
    "-d",
    `${opts.durationS}s`,
    "--timeout",
    "5s",
    ...Object.entries(opts.headers ?? {}).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    opts.url,
  ];
  // Spawned, not spawnSync: the server under load runs in this process and must keep its event loop.
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const killer = setTimeout(() => child.kill("SIGKILL"), (opts.durationS + 15) * 1000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(killer);
      code === 0 ? resolve(out) : reject(new Error(`wrk exited ${code}: ${out}`));
    });
  });
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output)?.[1];
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1];
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return {
    generator: "wrk",
    requestsPerSecond: Number(rps),
    p50Ms: latencyMs(output, "50"),
    p99Ms: latencyMs(output, "99"),
    errors: Number(non2xx ?? 0) + socketErrors,
  };
}

const fetchOk = (opts: HttpLoadOptions) => async () => {
  const res = await fetch(opts.url, { headers: opts.headers ?? {} });
  await res.arrayBuffer();
  return res.ok;
};

/**
 * `perSecond` requests a second for `durationS`, from this process (Debian's wrk has no fixed-rate mode),
 * at most `concurrency` at once: the latency clients see at that load, counted from when each was due.
 */
export function httpAtRate(opts: HttpLoadOptions, perSecond: number): Promise<LoopResult> {
  if (!new URL(opts.url).hostname.startsWith("127.")) throw new Error("load is only ever aimed at 127.0.0.1");
  return openLoop(perSecond, opts.durationS, opts.concurrency, fetchOk(opts));
}

async function nodeLoad(opts: HttpLoadOptions): Promise<HttpLoadResult> {
  const r = await closedLoop(opts.concurrency, opts.durationS, fetchOk(opts));
  return {
    generator: "node",
    requestsPerSecond: r.perSecond,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.errors,
  };
}
