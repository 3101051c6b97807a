import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { SERVICE_NAMES, type ServiceName } from "@ramp/contracts";
import { ensureFerretDb, ensureNatsServer, findMongod } from "./binaries.ts";
import {
  createNatsCredentials,
  keptNatsCredentials,
  type NatsCredentials,
  natsNkeyEnv,
  natsSeedEnv,
} from "./nats-auth.ts";
import {
  ensurePostgres,
  type PostgresServer,
  postgresAvailable,
  prepareForFerretDb,
  startPostgres,
} from "./postgres.ts";
import { type LaunchOptions, type RunningProcess, startFerret, startMongod, startNats } from "./processes.ts";

export const REPO_ROOT = resolve(import.meta.dirname, "../../..");
export const DATA_DIR = join(REPO_ROOT, ".data");
export const TOOLS_DIR = join(REPO_ROOT, ".tools");

export interface Infra {
  natsUrl: string;
  mongoUrl: string;
  source: "env" | "docker" | "local";
  /**
   * Each service's NATS nkey seed, to be handed to it as NATS_NKEY_SEED. Docker and throwaway local
   * servers get fresh keys on every start, a kept local store the keys it was made with; with NATS_URL
   * from the environment they come from `<SERVICE>_NATS_NKEY_SEED`.
   */
  natsSeeds: Partial<Record<ServiceName, string>>;
  stop(): Promise<void>;
}

const seedsOf = (creds: NatsCredentials) =>
  Object.fromEntries(SERVICE_NAMES.map((svc) => [svc, creds[svc].seed])) as Record<ServiceName, string>;

function dockerAnswers(): boolean {
  const r = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], {
    encoding: "utf8",
    timeout: 5_000,
  });
  return r.status === 0 && r.stdout.trim().length > 0;
}

/**
 * What FerretDB stores into when it is the local database: RAMP_LOCAL_DB, else PostgreSQL where it is
 * installed or can be (root with apt-get), else SQLite. PostgreSQL is the faster of the two for this
 * service's writes (parallel inserts, updates by an indexed field, keyed orders) and the whole suite
 * passes on both.
 */
export const LOCAL_DB_BACKENDS = ["sqlite", "postgresql"] as const;
export type LocalDbBackend = (typeof LOCAL_DB_BACKENDS)[number];

export function localDbBackend(
  env: Record<string, string | undefined> = process.env,
  canUsePostgres: () => boolean = postgresAvailable,
): LocalDbBackend {
  const v = env.RAMP_LOCAL_DB || (canUsePostgres() ? "postgresql" : "sqlite");
  const backend = LOCAL_DB_BACKENDS.find((b) => b === v);
  if (!backend) throw new Error(`RAMP_LOCAL_DB must be one of ${LOCAL_DB_BACKENDS.join(", ")}, not "${v}"`);
  return backend;
}

export interface LocalDatabase extends RunningProcess {
  /** What answers at `url`, for logs and benchmark labels. */
  kind: "mongod" | `FerretDB (${LocalDbBackend})`;
}

/**
 * A local MongoDB-wire database under `dataDir`: mongod when installed, else FerretDB (built if
 * missing) on the backend RAMP_LOCAL_DB names — SQLite files, or a private PostgreSQL cluster started
 * (and stopped) with it.
 */
export async function startLocalDatabase(
  dataDir: string,
  port?: number,
  launch: LaunchOptions = {},
  env: Record<string, string | undefined> = process.env,
): Promise<LocalDatabase> {
  const backend = localDbBackend(env);
  const mongod = findMongod();
  if (mongod) return { ...(await startMongod(mongod, dataDir, port, launch)), kind: "mongod" };
  const ferretdb = ensureFerretDb(TOOLS_DIR);
  if (backend === "sqlite") {
    return { ...(await startFerret(ferretdb, dataDir, port, launch)), kind: "FerretDB (sqlite)" };
  }
  return startFerretOnPostgres(ferretdb, ensurePostgres(), dataDir, port, launch);
}

/** FerretDB storing into a private PostgreSQL cluster of its own; `stop` stops both, FerretDB first. */
export async function startFerretOnPostgres(
  ferretdb: string,
  postgresBinDir: string,
  dataDir: string,
  port?: number,
  launch: LaunchOptions = {},
): Promise<LocalDatabase & { postgres: PostgresServer }> {
  const pg = await startPostgres(postgresBinDir, dataDir, undefined, launch);
  try {
    prepareForFerretDb(postgresBinDir, pg);
    const ferret = await startFerret(ferretdb, dataDir, port, { ...launch, postgresqlUrl: pg.url });
    return {
      ...ferret,
      kind: "FerretDB (postgresql)",
      postgres: pg,
      async stop() {
        await ferret.stop();
        await pg.stop();
      },
    };
  } catch (err) {
    await pg.stop();
    throw err;
  }
}

export interface InfraOptions extends LaunchOptions {
  dataDir?: string;
  natsPort?: number;
  mongoPort?: number;
  env?: Record<string, string | undefined>;
}

/** URLs from the environment, else Docker if an engine answers, else local binaries. */
export async function startInfra(opts: InfraOptions = {}): Promise<Infra> {
  const env = opts.env ?? process.env;
  if (env.NATS_URL && env.MONGODB_URI) {
    const natsSeeds = Object.fromEntries(SERVICE_NAMES.map((svc) => [svc, env[natsSeedEnv(svc)]]));
    return {
      natsUrl: env.NATS_URL,
      mongoUrl: env.MONGODB_URI,
      source: "env",
      natsSeeds,
      stop: async () => undefined,
    };
  }
  const credentials = createNatsCredentials();
  // RAMP_INFRA=local skips Docker, so a test's launcher never touches a developer's compose stack.
  if (env.RAMP_INFRA !== "local" && dockerAnswers()) {
    // The same NATS configuration as deploy/nats/nats.conf, published on 127.0.0.1 only.
    const publicKeys = Object.fromEntries(
      SERVICE_NAMES.map((s) => [natsNkeyEnv(s), credentials[s].publicKey]),
    );
    const up = spawnSync(
      "docker",
      ["compose", "-f", "deploy/compose.local-infra.yml", "-p", "ramp-local", "up", "-d", "--wait"],
      { cwd: REPO_ROOT, stdio: "inherit", env: { ...process.env, ...publicKeys } },
    );
    if (up.status === 0) {
      return {
        natsUrl: "nats://127.0.0.1:4222",
        mongoUrl: "mongodb://127.0.0.1:27017/",
        source: "docker",
        natsSeeds: seedsOf(credentials),
        stop: async () => undefined,
      };
    }
  }
  const dataDir = opts.dataDir ?? DATA_DIR;
  mkdirSync(dataDir, { recursive: true });
  const launch = { detached: opts.detached ?? false, keep: opts.keep ?? false };
  // A kept store keeps its keys too (see keptNatsCredentials).
  const local = launch.keep ? keptNatsCredentials(join(dataDir, "nats")) : credentials;
  const nats = await startNats(ensureNatsServer(TOOLS_DIR), dataDir, opts.natsPort, {
    credentials: local,
    ...launch,
  });
  const db = await startLocalDatabase(dataDir, opts.mongoPort, launch, env);
  return {
    natsUrl: nats.url,
    mongoUrl: db.url,
    source: "local",
    natsSeeds: seedsOf(local),
    async stop() {
      await Promise.all([nats.stop(), db.stop()]);
    },
  };
}
