// `npm start`: infrastructure, the six services (RAMP_REPLICAS processes of each), a sandbox business
// and market rates. Data is kept between starts (`npm start -- --reset` starts clean). Fails fast: a
// port in use, a service that dies while starting or keeps dying afterwards, brings everything down
// with a non-zero exit. Any ending signal, or the loss of the process that started us, drains every
// service, then the infrastructure.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DATA_DIR,
  ensureConsoleBuilt,
  ensureServiceBundles,
  hasKeptData,
  type Infra,
  peerKeysFromSeeds,
  REPO_ROOT,
  removeKeptData,
  removeStaleRuns,
  startInfra,
} from "@ramp/devinfra";
import { onParentGone, outliveLostOutput } from "@ramp/runtime";
import { banner, type DataState } from "./launcher/banner.ts";
import type { ConsoleSignIn } from "./launcher/console-people.ts";
import { launcherOptions } from "./launcher/options.ts";
import { gatewayUrls, listenPorts, planProcesses } from "./launcher/plan.ts";
import { portsInUse } from "./launcher/ports.ts";
import { loadSandbox, SANDBOX_FILE, saveSandbox } from "./launcher/sandbox-store.ts";
import {
  awaitGatewaysReady,
  type SandboxSeed,
  sandboxBusiness,
  sandboxConsolePeople,
} from "./launcher/seed.ts";
import { prepareServices } from "./launcher/service-config.ts";
import { type Supervisor, startSupervisor } from "./launcher/supervisor.ts";

// An unhandled EPIPE on a closed terminal would end the launcher before its stop had stopped the
// database and NATS, leaving them running with nobody to stop them.
outliveLostOutput();
const say = (line: string) => process.stderr.write(`[start] ${line}\n`);
const started = Date.now();
// RAMP_DATA_DIR lets a second launcher (a test) keep its infrastructure apart from a developer's.
const dataDir = process.env.RAMP_DATA_DIR ?? join(DATA_DIR, "local");
const LOCK = join(dataDir, "launcher.pid");
let infraStarting: Promise<Infra> | undefined;
let supervisor: Supervisor | undefined;
const seeding = new AbortController();

let shuttingDown: Promise<never> | undefined;
function shutdown(code: number, reason?: string): Promise<never> {
  shuttingDown ??= (async () => {
    seeding.abort();
    if (reason) say(`${code === 0 ? "" : "FAILED: "}${reason}`);
    say("stopping services…");
    await supervisor?.stop();
    // Infrastructure still coming up is waited for, so its processes are stopped rather than orphaned.
    const infra = await infraStarting?.catch(() => undefined);
    await infra?.stop();
    if (ownsLock()) rmSync(LOCK, { force: true });
    say(code === 0 ? "stopped" : "stopped after a failure");
    process.exit(code);
  })();
  return shuttingDown;
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const) {
  process.on(signal, () => void shutdown(0, signal));
}
// Whoever started us (bootstrap.mjs, a test, a process manager) is gone: nobody is left to stop us.
onParentGone(() => void shutdown(0, "the process that started npm start has gone"));

function ownsLock(): boolean {
  return existsSync(LOCK) && readFileSync(LOCK, "utf8").trim() === String(process.pid);
}

/** One launcher per data folder: a second would start servers on the first one's stores. */
function lockDataDir() {
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(LOCK)) {
    const pid = Number(readFileSync(LOCK, "utf8").trim());
    let alive = false;
    try {
      alive = Number.isInteger(pid) && pid > 0 && process.kill(pid, 0);
    } catch (err) {
      alive = (err as NodeJS.ErrnoException).code === "EPERM";
    }
    if (alive) {
      throw new Error(
        `another npm start (pid ${pid}) is using ${dataDir}: stop it first, or set RAMP_DATA_DIR`,
      );
    }
  }
  writeFileSync(LOCK, `${process.pid}\n`);
}

try {
  const opts = launcherOptions(process.env, process.argv.slice(2));
  // The processes' ports are fixed by PORT and HEALTH_PORT (NATS and the database take free ones), so
  // they are checked before anything starts.
  const planned = planProcesses(opts, { natsUrl: "", mongoUrl: "", natsSeeds: {} });
  const busy = await portsInUse(listenPorts(planned));
  if (busy.length > 0) {
    throw new Error(
      `port ${busy.join(", ")} is in use (another npm start, or another program): stop it, or choose another PORT${opts.healthPort ? " / HEALTH_PORT" : ""}`,
    );
  }
  lockDataDir();
  // Folders of earlier starts' throwaway servers (one per port, before data was kept).
  const stale = removeStaleRuns(dataDir, /^(nats|ferretdb|mongod|postgres)-\d+$/);
  if (stale.length > 0) say(`removed ${stale.length} folder(s) of earlier runs from ${dataDir}`);
  let data: DataState = hasKeptData(dataDir) ? "kept" : "new";
  if (opts.reset && data === "kept") {
    removeKeptData(dataDir, [SANDBOX_FILE]);
    data = "reset";
  }
  // A fresh clone has no build of the web console yet; Vite's progress shows while it builds (once).
  ensureConsoleBuilt();
  // Each service's bundle (built again only when a source changed) while the infrastructure starts.
  const bundling = ensureServiceBundles();
  bundling.catch(() => undefined);
  infraStarting = startInfra({ dataDir, detached: true, keep: true });
  const infra = await infraStarting;
  say(`infra (${infra.source}): ${infra.natsUrl} ${infra.mongoUrl}`);
  if (shuttingDown) await shuttingDown;
  const plan = planProcesses(opts, { ...infra, natsPeerKeys: peerKeysFromSeeds(infra.natsSeeds) });
  const specs = prepareServices(plan, process.env);
  await bundling;
  supervisor = startSupervisor(specs, REPO_ROOT);
  void supervisor.fatal.then((reason) => shutdown(1, reason));

  const gateways = gatewayUrls(specs);
  const aborted = new Promise<never>((_, reject) =>
    seeding.signal.addEventListener("abort", () => reject(new Error("stopping"))),
  );
  aborted.catch(() => undefined);
  await Promise.race([supervisor.started, aborted]);
  await awaitGatewaysReady(gateways, seeding.signal);
  let seed: SandboxSeed | undefined;
  let consolePeople: ConsoleSignIn[] = [];
  if (opts.sandbox === "true") {
    const kept = data === "kept" ? loadSandbox(dataDir) : undefined;
    const business = await sandboxBusiness(gateways[0]!, opts.adminToken, kept, seeding.signal);
    if (!business.reused) saveSandbox(dataDir, business.seed);
    seed = business.seed;
    consolePeople = await sandboxConsolePeople(gateways[0]!, opts.adminToken, seed, seeding.signal, say);
  }
  supervisor.markRunning();
  process.stdout.write(
    banner({
      seconds: (Date.now() - started) / 1000,
      gateways,
      replicas: opts.replicas,
      adminToken: opts.adminToken,
      seed,
      console: consolePeople,
      data: { state: data, dir: dataDir },
    }),
  );
} catch (err) {
  // A failed service reports itself through `fatal`; this is everything else (infra, readiness timeout).
  if (!shuttingDown) await shutdown(1, err instanceof Error ? err.message : String(err));
}
