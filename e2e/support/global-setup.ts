import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import {
  DATA_DIR,
  ensureNatsServer,
  ensureServiceBundles,
  markInUse,
  removeStaleRuns,
  startLocalDatabase,
  TOOLS_DIR,
} from "@ramp/devinfra";
import type {} from "@ramp/devinfra/testing";
import type { TestProject } from "vitest/node";

const stops: Array<() => Promise<unknown>> = [];

function dockerAnswers(): boolean {
  const r = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], {
    encoding: "utf8",
    timeout: 5_000,
  });
  return r.status === 0 && r.stdout.trim().length > 0;
}

/**
 * One database for the whole run (each test file uses its own database names):
 * MONGODB_URI from the environment → testcontainers when Docker answers → local mongod, else FerretDB
 * on RAMP_LOCAL_DB's backend.
 * NATS is a local nats-server started per test file from `natsBin`, so subjects never cross between
 * files, and configured as deployments are (one user per service, no anonymous access): a test never
 * runs with more NATS rights than the service it stands for, so NATS_URL is not honoured here.
 */
export async function setup(project: TestProject) {
  mkdirSync(DATA_DIR, { recursive: true });
  // Earlier runs' folders are kept for their logs until a later run finds nobody using them.
  removeStaleRuns(DATA_DIR, /^(test|fault)-/);
  const dataDir = mkdtempSync(join(DATA_DIR, "test-"));
  markInUse(dataDir, [process.pid]);
  project.provide("testDataDir", dataDir);
  let mongoUrl = process.env.MONGODB_URI ?? "";
  if (!mongoUrl && dockerAnswers()) {
    const { GenericContainer, Wait } = await import("testcontainers");
    const mongo = await new GenericContainer("mongo:7")
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start();
    stops.push(() => mongo.stop());
    mongoUrl = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/`;
  }
  if (!mongoUrl) {
    const db = await startLocalDatabase(dataDir);
    stops.push(() => db.stop());
    mongoUrl = db.url;
  }
  project.provide("mongoUrl", mongoUrl);
  project.provide("natsBin", ensureNatsServer(TOOLS_DIR));
  // Once here, before the test files that start whole stacks find them missing together.
  await ensureServiceBundles();
}

export async function teardown() {
  for (const stop of stops.reverse()) await stop();
}
