/**
 * HTTP load against 127.0.0.1 for a fixed time, from a load generator in a process of its own: `wrk`
 * (a C generator; `apt-get install wrk`) when it is installed, else autocannon from npm
 * (support/autocannon-main.ts), so a fresh clone still runs every benchmark. Either way it stops by
 * itself after `durationS`, and the process under load never shares its event loop with the generator.
 *
 * A body may hold `[<id>]`: each request gets it replaced by an id of its own (a wrk Lua script, or
 * autocannon's setupRequest), so no two requests carry the same body.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "@ramp/devinfra";
import type { LoopResult } from "./closed-loop.ts";
import { openLoop } from "./open-loop.ts";

export interface HttpLoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** Sent as it is, with `[<id>]` replaced per request. */
  body?: string;
  concurrency: number;
  durationS: number;
}

export interface HttpLoadResult {
  generator: "wrk" | "autocannon";
  /** 2xx answers a second. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx answers and socket errors: a run with any is not a valid figure. */
  errors: number;
}

/** Where each request's own id goes in a body (autocannon's placeholder, which the wrk script mimics). */
export const ID_PLACEHOLDER = "[<id>]";

const hasWrk = () => spawnSync("wrk", ["--version"], { encoding: "utf8" }).error === undefined;

const onlyLocal = (url: string) => {
  if (!new URL(url).hostname.startsWith("127.")) throw new Error("load is only ever aimed at 127.0.0.1");
};

export function httpLoad(opts: HttpLoadOptions): Promise<HttpLoadResult> {
  onlyLocal(opts.url);
  return hasWrk() && process.env.BENCH_GENERATOR !== "autocannon" ? wrkLoad(opts) : autocannonLoad(opts);
}

/** Runs a generator to its end (it stops by itself; killed if it overruns by 15 s); its output. */
function runGenerator(cmd: string, args: string[], durationS: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const killer = setTimeout(() => child.kill("SIGKILL"), (durationS + 15) * 1000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(killer);
      code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}: ${out}`));
    });
  });
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000 };

function latencyMs(output: string, percentile: string): number {
  const m = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(output);
  return m?.[1] && m[2] ? Number(m[1]) * (UNIT_MS[m[2]] ?? Number.NaN) : Number.NaN;
}

/** A wrk script sending `body` with its placeholder replaced by thread, start time and a counter. */
function wrkScript(method: string, body: string): string {
  return `-- written by bench/support/http-load.ts
wrk.method = ${JSON.stringify(method)}
local template = ${JSON.stringify(body)}
local counter = 0
local nextThread = 0
function setup(thread)
  thread:set("tid", nextThread)
  nextThread = nextThread + 1
end
function init(args)
  prefix = string.format("%d-%d", tid, os.time())
end
function request()
  counter = counter + 1
  local body = (template:gsub("%[<id>%]", prefix .. "-" .. counter))
  return wrk.format(nil, nil, nil, body)
end
`;
}

async function wrkLoad(opts: HttpLoadOptions): Promise<HttpLoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "ramp-wrk-"));
  try {
    const script = join(dir, "request.lua");
    if (opts.body !== undefined || (opts.method ?? "GET") !== "GET") {
      writeFileSync(script, wrkScript(opts.method ?? "GET", opts.body ?? ""));
    }
    const args = [
      "--latency",
      "-t",
      String(Math.min(2, opts.concurrency)),
      "-c",
      String(opts.concurrency),
      "-d",
      `${opts.durationS}s`,
      "--timeout",
      "10s",
      ...(opts.body !== undefined || (opts.method ?? "GET") !== "GET" ? ["-s", script] : []),
      ...Object.entries(opts.headers ?? {}).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
      opts.url,
    ];
    const output = await runGenerator("wrk", args, opts.durationS);
    const total = /^\s*(\d+) requests in ([\d.]+)(us|ms|s|m)/m.exec(output);
    const seconds =
      total?.[2] && total[3] ? (Number(total[2]) * (UNIT_MS[total[3]] ?? 60_000)) / 1000 : Number.NaN;
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
    const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
    return {
      generator: "wrk",
      requestsPerSecond: (Number(total?.[1] ?? Number.NaN) - non2xx) / seconds,
      p50Ms: latencyMs(output, "50"),
      p99Ms: latencyMs(output, "99"),
      errors: non2xx + socketErrors,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fields of autocannon's result this reads. */
interface AutocannonJson {
  duration: number;
  "2xx": number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latency: { p50: number; p99: number };
}

async function autocannonLoad(opts: HttpLoadOptions): Promise<HttpLoadResult> {
  const output = await runGenerator(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "bench", "support", "autocannon-main.ts"), JSON.stringify(opts)],
    opts.durationS,
  );
  const line = output.split("\n").find((l) => l.startsWith("{"));
  if (!line) throw new Error(`autocannon printed no result: ${output}`);
  const r = JSON.parse(line) as AutocannonJson;
  return {
    generator: "autocannon",
    requestsPerSecond: r["2xx"] / r.duration,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.non2xx + r.errors + r.timeouts,
  };
}

/** What a fixed-rate run saw: answers, refusals (429/503, the gateway shedding) and failures apart. */
export interface FixedRateResult extends LoopResult {
  offeredPerSecond: number;
  /** 429 and 503 answers a second. */
  shedPerSecond: number;
}

export interface FixedRateOptions extends HttpLoadOptions {
  perSecond: number;
}

/**
 * `perSecond` requests a second for `durationS` (Debian's wrk has no fixed-rate mode), from a Node
 * process of its own (bench/support/fixed-rate-main.ts), at most `concurrency` at once: the latency
 * clients see at that load, counted from when each request was due.
 */
export async function httpAtRate(opts: FixedRateOptions): Promise<FixedRateResult> {
  onlyLocal(opts.url);
  const output = await runGenerator(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "bench", "support", "fixed-rate-main.ts"), JSON.stringify(opts)],
    opts.durationS + 15,
  );
  const line = output.split("\n").find((l) => l.startsWith("{"));
  if (!line) throw new Error(`the fixed-rate generator printed no result: ${output}`);
  return JSON.parse(line) as FixedRateResult;
}

/** One request over `agent`, its body read and dropped: the status (node:http costs far less CPU per call than fetch). */
function call(agent: Agent, opts: FixedRateOptions, body: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = {
      ...opts.headers,
      ...(body === undefined ? {} : { "content-length": Buffer.byteLength(body) }),
    };
    const req = request(opts.url, { method: opts.method ?? "GET", headers, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error("timed out after 10 s")));
    req.on("error", reject);
    req.end(body);
  });
}

/** The body of one fixed-rate run, in the generator's own process (see fixed-rate-main.ts). */
export async function fixedRate(opts: FixedRateOptions): Promise<FixedRateResult> {
  let n = 0;
  let shed = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const started = performance.now();
  const unique = `${process.pid}-${Date.now()}`;
  const r = await openLoop(opts.perSecond, opts.durationS, opts.concurrency, async () => {
    const status = await call(agent, opts, opts.body?.replaceAll(ID_PLACEHOLDER, `${unique}-${n++}`));
    if (status === 429 || status === 503) shed++;
    return status >= 200 && status < 300;
  });
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    ...r,
    errors: r.errors - shed,
    offeredPerSecond: opts.perSecond,
    shedPerSecond: shed / seconds,
  };
}
