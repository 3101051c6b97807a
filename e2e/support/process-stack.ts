import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { createNatsCredentials, freePort, type RunningProcess, startNats } from "@ramp/devinfra";
import { type Db, MongoClient } from "mongodb";
import { type ManagedProcess, managedProcess } from "./service-process.ts";

export const SERVICE_NAMES = [
  "pricing",
  "banking",
  "chain-watcher",
  "orders",
  "webhook-dispatcher",
  "gateway",
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
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
}

const REPO_ROOT = resolve(import.meta.dirname, "../..");
/** What a child needs from the parent's environment to run node and tsx; nothing of the parent's config. */
const INHERITED = ["PATH", "HOME", "TMPDIR", "LANG"];

/**
 * The whole system as real child processes (`node --import tsx services/<name>/src/main.ts`), so a
 * `kill -9` is a real crash: no finally blocks, no drain, half-written state left behind. NATS is a
 * real nats-server with a JetStream store that survives its own restarts on the same port.
 */
export async function startProcessStack(opts: ProcessStackOptions) {
  const id = randomBytes(4).toString("hex");
  const runDir = join(opts.dataDir, `fault-${id}`);
  mkdirSync(runDir, { recursive: true });
  const natsPort = await freePort();
  // Run as production does: each service with its own nkey and only its own permissions.
  const credentials = createNatsCredentials();
  let nats: RunningProcess = await startNats(opts.natsBin, runDir, natsPort, { credentials });
  const gatewayPort = await freePort();
  const healthPorts = new Map<ServiceName, number>();
  for (const name of SERVICE_NAMES) healthPorts.set(name, await freePort());
  const dbName = (name: ServiceName) => `f${id}_${name.replace(/-/g, "_")}`;

  /**
   * The one place a service's environment is built: connection settings (credentials belong here
   * too), its own database, and what this run overrides.
   */
  function serviceEnv(name: ServiceName): Env {
    const inherited = Object.fromEntries(
      INHERITED.flatMap((k) => (process.env[k] ? [[k, process.env[k] as string]] : [])),
    );
    return {
      ...inherited,
      NATS_URL: nats.url,
      NATS_NKEY_SEED: credentials[name].seed,
      MONGODB_URI: opts.mongoUrl,
      MONGODB_DATABASE: dbName(name),
      LOG_LEVEL: opts.logLevel ?? "warn",
      HEALTH_PORT: String(healthPorts.get(name)),
      RAMP_SANDBOX: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      ...(name === "gateway"
        ? {
            PORT: String(gatewayPort),
            ADMIN_TOKEN: opts.adminToken,
            RATE_LIMIT_PER_SECOND: "1000",
            RATE_LIMIT_BURST: "2000",
          }
        : {}),
      ...opts.env,
      ...opts.serviceEnv?.[name],
    };
  }

  const ready = (name: ServiceName) => async () => {
    const res = await fetch(`http://127.0.0.1:${healthPorts.get(name)}/readyz`, {
      signal: AbortSignal.timeout(2_000),
    });
    return res.status === 200;
  };

  const services = new Map<ServiceName, ManagedProcess>(
    SERVICE_NAMES.map((name) => [
      name,
      managedProcess({
        name,
        command: process.execPath,
        args: ["--import", "tsx", join("services", name, "src", "main.ts")],
        cwd: REPO_ROOT,
        env: () => serviceEnv(name),
        logFile: join(runDir, `${name}.log`),
        ready: ready(name),
      }),
    ]),
  );
  const service = (name: ServiceName) => services.get(name) as ManagedProcess;
  let mongo: MongoClient | undefined;
  let natsRestarts = 0;

  const stack = {
    id,
    runDir,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    get natsUrl() {
      return nats.url;
    },
    get natsRestarts() {
      return natsRestarts;
    },
    service,
    services: () => [...services.values()],
    logFile: (name: ServiceName) => join(runDir, `${name}.log`),
    /** `kill -9` nats-server, then start it again on the same port with the same JetStream store. */
    async restartNats(downMs = 1_000) {
      const old = nats;
      const exited = new Promise<void>((r) => old.child.once("exit", () => r()));
      if (old.child.exitCode === null && old.child.signalCode === null) {
        old.child.kill("SIGKILL");
        await exited;
      }
      await new Promise((r) => setTimeout(r, downMs));
      nats = await startNats(opts.natsBin, runDir, natsPort, { credentials });
      natsRestarts++;
    },
    /** A service's own database, read directly: tests may look behind the API to count what was done. */
    async db(name: ServiceName): Promise<Db> {
      mongo ??= await MongoClient.connect(opts.mongoUrl);
      return mongo.db(dbName(name));
    },
    async close() {
      for (const name of [...SERVICE_NAMES].reverse()) await service(name).stop();
      await mongo?.close();
      await nats.stop();
    },
  };
  try {
    // Pricing, banking and chain-watcher first: orders and the gateway call them as soon as they answer.
    const first: ServiceName[] = ["pricing", "banking", "chain-watcher", "webhook-dispatcher"];
    await Promise.all(first.map((n) => service(n).start()));
    await Promise.all([service("orders").start(), service("gateway").start()]);
  } catch (err) {
    await stack.close();
    throw err;
  }
  return stack;
}
export type ProcessStack = Awaited<ReturnType<typeof startProcessStack>>;
