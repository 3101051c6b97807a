// `npm start`: infrastructure, the six services (RAMP_REPLICAS processes of each), a sandbox business
// and market rates. Fails fast: a service that dies while starting, or keeps dying afterwards, brings
// everything down with a non-zero exit. Ctrl-C or SIGTERM drains every service, then the infrastructure.
import { join } from "node:path";
import {
  DATA_DIR,
  type Infra,
  peerKeysFromSeeds,
  REPO_ROOT,
  removeStaleRuns,
  startInfra,
} from "@ramp/devinfra";
import { banner } from "./launcher/banner.ts";
import { launcherOptions } from "./launcher/options.ts";
import { gatewayUrls, planProcesses } from "./launcher/plan.ts";
import { awaitReadyAndSeed } from "./launcher/seed.ts";
import { prepareServices } from "./launcher/service-config.ts";
import { type Supervisor, startSupervisor } from "./launcher/supervisor.ts";

const say = (line: string) => process.stderr.write(`[start] ${line}\n`);
const started = Date.now();
const opts = launcherOptions(process.env);
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
    say(code === 0 ? "stopped" : "stopped after a failure");
    process.exit(code);
  })();
  return shuttingDown;
}
process.on("SIGINT", () => void shutdown(0, "SIGINT"));
process.on("SIGTERM", () => void shutdown(0, "SIGTERM"));

try {
  // RAMP_DATA_DIR lets a second launcher (a test) keep its infrastructure apart from a developer's.
  const dataDir = process.env.RAMP_DATA_DIR ?? join(DATA_DIR, "local");
  // Each start gets servers on fresh ports, in fresh folders: earlier starts' are of no further use.
  const stale = removeStaleRuns(dataDir, /^(nats|ferretdb|mongod)-\d+$/);
  if (stale.length > 0) say(`removed ${stale.length} folder(s) of earlier runs from ${dataDir}`);
  infraStarting = startInfra({ dataDir, detached: true });
  const infra = await infraStarting;
  say(`infra (${infra.source}): ${infra.natsUrl} ${infra.mongoUrl}`);
  if (shuttingDown) await shuttingDown;
  const plan = planProcesses(opts, { ...infra, natsPeerKeys: peerKeysFromSeeds(infra.natsSeeds) });
  const specs = prepareServices(plan, process.env);
  supervisor = startSupervisor(specs, REPO_ROOT);
  void supervisor.fatal.then((reason) => shutdown(1, reason));

  const gateways = gatewayUrls(specs);
  const seed = await awaitReadyAndSeed(gateways, opts.adminToken, opts.sandbox === "true", seeding.signal);
  supervisor.markRunning();
  process.stdout.write(
    banner({
      seconds: (Date.now() - started) / 1000,
      gateways,
      replicas: opts.replicas,
      adminToken: opts.adminToken,
      seed,
    }),
  );
} catch (err) {
  // A failed service reports itself through `fatal`; this is everything else (infra, readiness timeout).
  if (!shuttingDown) await shutdown(1, err instanceof Error ? err.message : String(err));
}
