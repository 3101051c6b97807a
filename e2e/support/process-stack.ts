import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type ServiceName, START_ORDER } from "@ramp/contracts";
import {
  createNatsCredentials,
  ensureServiceBundles,
  freePort,
  type NatsCluster,
  peerKeysOf,
  type RunningProcess,
  serviceNodeArgs,
  startNats,
  startNatsCluster,
} from "@ramp/devinfra";
import { connectAs } from "@ramp/devinfra/testing";
import { type Db, MongoClient } from "mongodb";
import { type ManagedProcess, managedProcess } from "./service-process.ts";

export const SERVICE_NAMES = START_ORDER;
export type { ServiceName };

type Env = Record<string, string>;

export interface ProcessStackOptions {
  mongoUrl: string;
  natsBin: string;
  /** Everything of this run (NATS store, one log per process) goes in a fresh folder under it. */
  dataDir: string;
  adminToken: string;
  /** Default `warn`; `info` makes the per-process logs tell each order's story. */
  logLevel?: string;
  env?: Env;
  serviceEnv?: Partial<Record<ServiceName, Env>>;
  /** Extra node flags per service (`--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs?: Partial<Record<ServiceName, string[]>>;
  /**
   * Processes of every service (default 1), or per service (those not named get 1); each gateway
   * replica listens on a port of its own.
   */
  replicas?: number | Partial<Record<ServiceName, number>>;
  /** nats-server nodes (default 1); more form a JetStream cluster and streams get 3 replicas. */
  natsNodes?: number;
}

const REPO_ROOT = resolve(import.meta.dirname, "../..");
/** What a child needs from the parent's environment to run node; nothing of the parent's config. */
const INHERITED = ["PATH", "HOME", "TMPDIR", "LANG"];

/**
 * The whole system as real child processes (`node services/<name>/dist/main.mjs`, each service's bundle), so a
 * `kill -9` is a real crash: no finally blocks, no drain, half-written state left behind. NATS is a
 * real nats-server with a JetStream store that survives its own restarts on the same port.
 */
export async function startProcessStack(opts: ProcessStackOptions) {
  const id = randomBytes(4).toString("hex");
  const runDir = join(opts.dataDir, `fault-${id}`);
  mkdirSync(runDir, { recursive: true });
  await ensureServiceBundles();
  const natsPort = await freePort();
  // Run as production does: each service with its own nkey and only its own permissions.
  const credentials = createNatsCredentials();
  const natsNodes = opts.natsNodes ?? 1;
  const cluster: NatsCluster | undefined =
    natsNodes > 1
      ? await startNatsCluster(opts.natsBin, runDir, { size: natsNodes, credentials })
      : undefined;
  let nats: RunningProcess | undefined = cluster
    ? undefined
    : await startNats(opts.natsBin, runDir, natsPort, { credentials });
  const natsUrl = () => cluster?.url ?? (nats as RunningProcess).url;
  const replicaIndexes = (name: ServiceName) => {
    const count = typeof opts.replicas === "number" ? opts.replicas : (opts.replicas?.[name] ?? 1);
    return Array.from({ length: count }, (_, i) => i);
  };
  const gatewayPorts: number[] = [];
  for (const _ of replicaIndexes("gateway")) gatewayPorts.push(await freePort());
  const healthPorts = new Map<string, number>();
  const instance = (name: ServiceName, i: number) => (i === 0 ? name : `${name}-${i + 1}`);
  for (const name of SERVICE_NAMES)
    for (const i of replicaIndexes(name)) healthPorts.set(instance(name, i), await freePort());
  const dbName = (name: ServiceName) => `f${id}_${name.replace(/-/g, "_")}`;

  /**
   * The one place a service's environment is built: connection settings (credentials belong here
   * too), its own database, and what this run overrides.
   */
  function serviceEnv(name: ServiceName, replica: number): Env {
    const inherited = Object.fromEntries(
      INHERITED.flatMap((k) => (process.env[k] ? [[k, process.env[k] as string]] : [])),
    );
    return {
      ...inherited,
      NATS_URL: natsUrl(),
      ...(cluster ? { NATS_STREAM_REPLICAS: "3" } : {}),
      NATS_NKEY_SEED: credentials[name].seed,
      NATS_PEER_KEYS: peerKeysOf(credentials),
      MONGODB_URI: opts.mongoUrl,
      MONGODB_DATABASE: dbName(name),
      LOG_LEVEL: opts.logLevel ?? "warn",
      HEALTH_PORT: String(healthPorts.get(instance(name, replica))),
      RAMP_SANDBOX: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      ...(name === "gateway"
        ? {
            PORT: String(gatewayPorts[replica]),
            ADMIN_TOKEN: opts.adminToken,
            RATE_LIMIT_PER_SECOND: "1000",
            RATE_LIMIT_BURST: "2000",
          }
        : {}),
      ...opts.env,
      ...opts.serviceEnv?.[name],
    };
  }

  const ready = (key: string) => async () => {
    const res = await fetch(`http://127.0.0.1:${healthPorts.get(key)}/readyz`, {
      signal: AbortSignal.timeout(2_000),
    });
    return res.status === 200;
  };

  const logFile = (name: ServiceName, replica = 0) => join(runDir, `${instance(name, replica)}.log`);
  const replicas = new Map<ServiceName, ManagedProcess[]>(
    SERVICE_NAMES.map((name) => [
      name,
      replicaIndexes(name).map((i) =>
        managedProcess({
          name: instance(name, i),
          command: process.execPath,
          args: [...(opts.nodeArgs?.[name] ?? []), ...serviceNodeArgs(name)],
          cwd: REPO_ROOT,
          env: () => serviceEnv(name, i),
          logFile: logFile(name, i),
          ready: ready(instance(name, i)),
        }),
      ),
    ]),
  );
  const replicasOf = (name: ServiceName) => replicas.get(name) as ManagedProcess[];
  /** The first process of a service (the only one unless `replicas` is set). */
  const service = (name: ServiceName) => replicasOf(name)[0] as ManagedProcess;
  let mongo: MongoClient | undefined;
  let natsRestarts = 0;

  const stack = {
    id,
    runDir,
    gatewayUrl: `http://127.0.0.1:${gatewayPorts[0]}`,
    gatewayUrls: gatewayPorts.map((p) => `http://127.0.0.1:${p}`),
    get natsUrl() {
      return natsUrl();
    },
    natsNodes,
    /** The process id of nats-server (a single node; undefined for a cluster), to read its CPU time. */
    get natsPid() {
      return nats?.child.pid;
    },
    get natsRestarts() {
      return natsRestarts;
    },
    service,
    replicasOf,
    services: () => [...replicas.values()].flat(),
    logFile,
    /**
     * `kill -9` nats-server, then start it again on the same port with the same JetStream store; on a
     * cluster, one node at a time, taking turns.
     */
    async restartNats(downMs = 1_000) {
      if (cluster) {
        const node = natsRestarts % cluster.size;
        await cluster.kill(node);
        await new Promise((r) => setTimeout(r, downMs));
        await cluster.start(node);
        natsRestarts++;
        return;
      }
      const old = nats as RunningProcess;
      const exited = new Promise<void>((r) => old.child.once("exit", () => r()));
      if (old.child.exitCode === null && old.child.signalCode === null) {
        old.child.kill("SIGKILL");
        await exited;
      }
      await new Promise((r) => setTimeout(r, downMs));
      nats = await startNats(opts.natsBin, runDir, natsPort, { credentials });
      natsRestarts++;
    },
    /** A NATS connection as `service`, for a driver calling what only services may (sandbox rail inbound). */
    connectAs: (name: ServiceName) => connectAs(cluster ? [...cluster.urls] : [natsUrl()], credentials, name),
    /** A service's own database, read directly: tests may look behind the API to count what was done. */
    async db(name: ServiceName): Promise<Db> {
      mongo ??= await MongoClient.connect(opts.mongoUrl);
      return mongo.db(dbName(name));
    },
    async close() {
      for (const name of [...SERVICE_NAMES].reverse())
        await Promise.all(replicasOf(name).map((p) => p.stop()));
      await mongo?.close();
      await (cluster ?? nats)?.stop();
    },
  };
  try {
    // Pricing, banking and chain-watcher first: orders and the gateway call them as soon as they answer.
    const first: ServiceName[] = ["pricing", "banking", "chain-watcher", "webhook-dispatcher"];
    // Further replicas after the first of every service is up: a dozen processes compiling and
    // booting at once on two cores can take longer than a boot may; the second wave also finds the
    // JetStream assets made and tsx's compile cache warm.
    const startAll = (names: ServiceName[], wave: "first" | "rest") =>
      Promise.all(
        names
          .flatMap((n) => (wave === "first" ? replicasOf(n).slice(0, 1) : replicasOf(n).slice(1)))
          .map((p) => p.start()),
      );
    await startAll(first, "first");
    await startAll(["orders", "gateway"], "first");
    await startAll([...SERVICE_NAMES], "rest");
  } catch (err) {
    await stack.close();
    throw err;
  }
  return stack;
}
export type ProcessStack = Awaited<ReturnType<typeof startProcessStack>>;
