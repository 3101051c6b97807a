/**
 * Reads V8 `.cpuprofile` files (what `node --cpu-prof` writes at exit) and sums self time per function
 * and per package, so a profile says which code a process spends its CPU on without opening DevTools.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface Profile {
  nodes: ProfileNode[];
  /** Microseconds on the machine's monotonic clock, as `process.hrtime` reads it. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch on the monotonic clock (`monotonicUs()`), to leave out start-up and shutdown. */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/** Now on the clock V8 stamps profile samples with (CLOCK_MONOTONIC, shared by every process). */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

export interface ProfileShare {
  name: string;
  ms: number;
  /** Share of the busy time (samples outside `(idle)`), in percent. */
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  packages: ProfileShare[];
  functions: ProfileShare[];
  /** Self time by whose cost it is (`ownerOf`). */
  owners: ProfileShare[];
}

/**
 * Whose cost a frame is: the project's own code; the libraries it calls for work it chose to do
 * (validation, logging, exact JSON and decimals, metrics, signatures and hashes, Node's crypto among
 * them); or what any service that talks to a database, NATS and HTTP pays whatever its code — the
 * database and NATS clients, Hono and Node's HTTP, sockets and streams, V8's compiler and collector.
 * The last is the floor the performance goals are read against.
 */
export type CostOwner = "our code" | "libraries for our work" | "clients, HTTP, Node and V8";

const FLOOR_PACKAGES = new Set(["mongodb", "bson", "hono", "@hono/node-server", "node:internals"]);

/** The owner of a frame at `url`, whose package (`packageOf`) is `pkg`. */
export function ownerOf(url: string, pkg: string): CostOwner {
  // Node's crypto (hashes, HMACs, signatures) does what the code asked for, not I/O.
  if (url.startsWith("node:internal/crypto/")) return "libraries for our work";
  if (/^(services|packages)\//.test(pkg)) return "our code";
  // V8's pseudo-frames and native code: `(native)`, `(garbage collector)`, `(program)`.
  if (FLOOR_PACKAGES.has(pkg) || pkg.startsWith("@nats-io/") || pkg.startsWith("(")) {
    return "clients, HTTP, Node and V8";
  }
  return "libraries for our work";
}

/**
 * Where a frame's code lives: an npm package (`ethers`, `@noble/curves`), a workspace folder
 * (`services/orders`, `packages/runtime`), `node:` internals, or V8's own pseudo-frames
 * (`(garbage collector)`, `(program)`).
 */
export function packageOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return "node:internals";
  const inModules = url.lastIndexOf("/node_modules/");
  if (inModules >= 0) {
    const rest = url.slice(inModules + "/node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const workspace = /\/(services|packages|bench|e2e|scripts)\/([^/]+)\//.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : url;
}

const sourceMaps = new Map<string, TraceMap | null>();

/** The source map beside a bundle (`main.mjs.map`), once per bundle; null for files without one. */
function sourceMapOf(url: string): TraceMap | null {
  let map = sourceMaps.get(url);
  if (map === undefined) {
    const file = url.startsWith("file:") ? `${fileURLToPath(url)}.map` : "";
    map = file && existsSync(file) ? new TraceMap(readFileSync(file, "utf8"), `${url}.map`) : null;
    sourceMaps.set(url, map);
  }
  return map;
}

/**
 * A frame as its source names it: the services run as bundles, where every frame's file is
 * `dist/main.mjs`; their source maps say which package and file each function came from.
 */
function originalFrame(frame: CallFrame): CallFrame {
  const map = frame.url.endsWith(".mjs") ? sourceMapOf(frame.url) : null;
  if (!map) return frame;
  const at = originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber ?? 0 });
  return at.source === null
    ? frame
    : { functionName: frame.functionName, url: at.source, lineNumber: (at.line ?? 1) - 1 };
}

const shortUrl = (url: string) =>
  url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(services|packages)\//, "$1/");

/** Self time per function and per package of profiles, counting only samples inside `window`. */
export function summariseProfiles(profiles: Profile[], window?: ProfileWindow): ProfileSummary {
  // Node ids are per profile: keyed by profile and id so two processes' nodes stay apart.
  const frames = new Map<string, CallFrame>();
  const selfMs = new Map<string, number>();
  profiles.forEach((profile, p) => {
    for (const n of profile.nodes) frames.set(`${p}:${n.id}`, n.callFrame);
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      const delta = profile.timeDeltas[i] ?? 0;
      at += delta;
      if (window && (at < window.fromUs || at > window.toUs)) return;
      const key = `${p}:${id}`;
      selfMs.set(key, (selfMs.get(key) ?? 0) + delta / 1000);
    });
  });
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  const owners = new Map<string, number>();
  let idleMs = 0;
  let busyMs = 0;
  for (const [id, ms] of selfMs) {
    const frame = originalFrame(frames.get(id) as CallFrame);
    if (frame.functionName === "(idle)") {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const pkg = packageOf(frame.url, frame.functionName);
    const fn = `${frame.functionName || "(anonymous)"} ${frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ""}`;
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    const owner = ownerOf(frame.url, pkg);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
    functions.set(fn.trim(), (functions.get(fn.trim()) ?? 0) + ms);
  }
  const ranked = (m: Map<string, number>) =>
    [...m]
      .map(([name, ms]) => ({ name, ms, percent: busyMs > 0 ? (ms / busyMs) * 100 : 0 }))
      .sort((a, b) => b.ms - a.ms);
  return {
    busyMs,
    idleMs,
    packages: ranked(packages),
    functions: ranked(functions),
    owners: ranked(owners),
  };
}

/** Every `.cpuprofile` in `dir` (one per process that exited under `--cpu-prof`), together. */
export function summariseProfileDir(dir: string, window?: ProfileWindow): ProfileSummary | null {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length === 0) return null;
  return summariseProfiles(
    files.map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Profile),
    window,
  );
}

export function formatProfile(summary: ProfileSummary, top = 12): string {
  const rows = (xs: ProfileShare[]) =>
    xs
      .slice(0, top)
      .map((x) => `    ${x.percent.toFixed(1).padStart(5)} %  ${x.ms.toFixed(0).padStart(6)} ms  ${x.name}`)
      .join("\n");
  return (
    `  busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms\n` +
    `  self time by whose cost it is:\n${rows(summary.owners)}\n` +
    `  self time by package:\n${rows(summary.packages)}\n  self time by function:\n${rows(summary.functions)}`
  );
}

/** Runs `work` under this process's own CPU profiler; the profile is summarised whole. */
export async function profileWhile<T>(
  work: () => Promise<T>,
): Promise<{ result: T; profile: ProfileSummary }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    const result = await work();
    const { profile } = await session.post("Profiler.stop");
    return { result, profile: summariseProfiles([profile as Profile]) };
  } finally {
    session.disconnect();
  }
}
