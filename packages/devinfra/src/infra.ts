import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ensureFerretDb, ensureNatsServer, findMongod } from "./binaries.ts";
import { type LaunchOptions, startFerret, startMongod, startNats } from "./processes.ts";

export const REPO_ROOT = resolve(import.meta.dirname, "../../..");
export const DATA_DIR = join(REPO_ROOT, ".data");
export const TOOLS_DIR = join(REPO_ROOT, ".tools");

export interface Infra {
  natsUrl: string;
  mongoUrl: string;
  source: "env" | "docker" | "local";
  stop(): Promise<void>;
}

function dockerAnswers(): boolean {
  const r = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], {
    encoding: "utf8",
    timeout: 5_000,
  });
  return r.status === 0 && r.stdout.trim().length > 0;
}

export interface InfraOptions extends LaunchOptions {
  dataDir?: string;
  natsPort?: number;
  mongoPort?: number;
  env?: Record<string, string | undefined>;
}

/** DESIGN §11: URLs from the environment, else Docker if an engine answers, else local binaries. */
export async function startInfra(opts: InfraOptions = {}): Promise<Infra> {
  const env = opts.env ?? process.env;
  if (env.NATS_URL && env.MONGODB_URI) {
    return { natsUrl: env.NATS_URL, mongoUrl: env.MONGODB_URI, source: "env", stop: async () => undefined };
  }
  // RAMP_INFRA=local skips Docker, so a test's launcher never touches a developer's compose stack.
  if (env.RAMP_INFRA !== "local" && dockerAnswers()) {
    const up = spawnSync("docker", ["compose", "up", "-d", "--wait", "nats", "mongodb"], {
      cwd: REPO_ROOT,
      stdio: "inherit",
    });
    if (up.status === 0) {
      return {
        natsUrl: "nats://127.0.0.1:4222",
        mongoUrl: "mongodb://127.0.0.1:27017/",
        source: "docker",
        stop: async () => undefined,
      };
    }
  }
  const dataDir = opts.dataDir ?? DATA_DIR;
  mkdirSync(dataDir, { recursive: true });
  const launch = { detached: opts.detached ?? false };
  const nats = await startNats(ensureNatsServer(TOOLS_DIR), dataDir, opts.natsPort, launch);
  const mongod = findMongod();
  const db = mongod
    ? await startMongod(mongod, dataDir, opts.mongoPort, launch)
    : await startFerret(ensureFerretDb(TOOLS_DIR), dataDir, opts.mongoPort, launch);
  return {
    natsUrl: nats.url,
    mongoUrl: db.url,
    source: "local",
    async stop() {
      await Promise.all([nats.stop(), db.stop()]);
    },
  };
}
