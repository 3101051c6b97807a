/** Helpers shared by every integration test (e2e and services' own `test/` folders). */
import { createUser } from "@nats-io/nkeys";
import { connect, type NatsConnection, nkeyAuthenticator } from "@nats-io/transport-node";
import type { NatsPermissions, ServiceName } from "@ramp/contracts";
import type {} from "vitest";
import { createNatsCredentials, type NatsCredentials, peerKeysOf } from "./nats-auth.ts";
import { type NatsCluster, startNatsCluster } from "./nats-cluster.ts";
import { startNats } from "./processes.ts";

/** What the integration project's global setup (e2e/support/global-setup.ts) provides to each test file. */
declare module "vitest" {
  export interface ProvidedContext {
    mongoUrl: string;
    natsBin: string;
    testDataDir: string;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value (not undefined) or the time runs out; the last error is reported. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await sleep(stepMs);
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
}

/** A user that exists only in test servers: it reads streams through consumers of its own and publishes no message. */
export const TEST_OBSERVER = "test-observer";
const OBSERVER_PERMISSIONS: NatsPermissions = {
  publish: {
    allow: [
      "$JS.API.INFO",
      "$JS.API.STREAM.INFO.*",
      "$JS.API.CONSUMER.CREATE.*",
      "$JS.API.CONSUMER.CREATE.*.*",
      "$JS.API.CONSUMER.CREATE.*.*.>",
      "$JS.API.CONSUMER.INFO.*.*",
      "$JS.API.CONSUMER.DELETE.*.*",
      "$JS.API.CONSUMER.MSG.NEXT.*.*",
    ],
  },
  subscribe: { allow: [`_INBOX.${TEST_OBSERVER}.>`] },
  allowResponses: false,
};

export interface TestNats {
  url: string;
  credentials: NatsCredentials;
  /** The environment a service needs to connect as itself. */
  envFor(service: ServiceName): { NATS_URL: string; NATS_NKEY_SEED: string; NATS_PEER_KEYS: string };
  /** A connection with one service's credentials and signing: it may do exactly what that service may. */
  connectAs(service: ServiceName): Promise<NatsConnection>;
  /** A connection as the test-only observer, for reading what was published. */
  connectObserver(): Promise<NatsConnection>;
  /** Stops and starts the server on the same port, store and users: every client sees a reconnect. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Connects as one service would: its nkey, its inbox prefix, and its signature on what it publishes.
 * Those are @ramp/runtime's, which this package does not depend on (runtime's own tests use it), so the
 * integration project's setup file hands it over (`useServiceConnector`, e2e/support/service-connections.ts).
 */
export type ServiceConnector = (
  servers: string[],
  service: ServiceName,
  credentials: { seed: string; peerKeys: string },
) => Promise<NatsConnection>;

let serviceConnector: ServiceConnector | undefined;

export function useServiceConnector(connector: ServiceConnector): void {
  serviceConnector = connector;
}

/** A connection as `service` to any nats-server given these credentials (a test's own process stack). */
export function connectAs(servers: string[], credentials: NatsCredentials, service: ServiceName) {
  if (!serviceConnector)
    throw new Error("no service connector: the test project's setupFiles must call useServiceConnector");
  return serviceConnector(servers, service, {
    seed: credentials[service].seed,
    peerKeys: peerKeysOf(credentials),
  });
}

const observerAuth = (seed: string) => ({
  inboxPrefix: `_INBOX.${TEST_OBSERVER}`,
  authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)),
});

function testUsers() {
  const credentials = createNatsCredentials();
  const observer = createUser();
  const observerSeed = new TextDecoder().decode(observer.getSeed());
  const extraUsers = [
    { name: TEST_OBSERVER, nkey: { publicKey: observer.getPublicKey() }, permissions: OBSERVER_PERMISSIONS },
  ];
  return { credentials, observerSeed, extraUsers };
}

export interface TestNatsCluster extends Omit<TestNats, "restart"> {
  /** The nodes, to kill and start one by one. */
  cluster: NatsCluster;
}

/** A three-node JetStream cluster of one test file's own, with the same users as `startTestNats`. */
export async function startTestNatsCluster(bin: string, dataDir: string): Promise<TestNatsCluster> {
  const { credentials, observerSeed, extraUsers } = testUsers();
  const cluster = await startNatsCluster(bin, dataDir, { credentials, extraUsers });
  const servers = [...cluster.urls];
  return {
    url: cluster.url,
    credentials,
    cluster,
    envFor: (service) => ({
      NATS_URL: cluster.url,
      NATS_NKEY_SEED: credentials[service].seed,
      NATS_PEER_KEYS: peerKeysOf(credentials),
    }),
    connectAs: (service) => connectAs(servers, credentials, service),
    connectObserver: () => connect({ servers, ...observerAuth(observerSeed) }),
    stop: () => cluster.stop(),
  };
}

/** A nats-server of one test file's own, configured as production is: one user per service, no anonymous access. */
export async function startTestNats(bin: string, dataDir: string): Promise<TestNats> {
  const { credentials, observerSeed, extraUsers } = testUsers();
  const options = { credentials, extraUsers };
  let nats = await startNats(bin, dataDir, undefined, options);
  return {
    url: nats.url,
    credentials,
    envFor: (service) => ({
      NATS_URL: nats.url,
      NATS_NKEY_SEED: credentials[service].seed,
      NATS_PEER_KEYS: peerKeysOf(credentials),
    }),
    connectAs: (service) => connectAs([nats.url], credentials, service),
    connectObserver: () => connect({ servers: nats.url, ...observerAuth(observerSeed) }),
    async restart() {
      await nats.stop();
      nats = await startNats(bin, dataDir, nats.port, options);
    },
    stop: () => nats.stop(),
  };
}

/** The part of a MongoDB driver `Db` that `answeredFromIndex` needs. */
interface Explains {
  command(cmd: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * Whether the database answers `filter` on `collection` from an index rather than by reading every
 * document: true, or what it does instead. On FerretDB the filter must be pushed down to its backend
 * and, on PostgreSQL, planned without a sequential scan (its `explain` returns the backend's plan); on
 * MongoDB, planned without a collection scan.
 */
export async function answeredFromIndex(
  db: Explains,
  collection: string,
  filter: Record<string, unknown>,
): Promise<string | true> {
  const plan = await db.command({ explain: { find: collection, filter }, verbosity: "queryPlanner" });
  const text = JSON.stringify(plan.queryPlanner ?? {});
  const ferret = (plan.serverInfo as { ferretdbVersion?: string } | undefined)?.ferretdbVersion;
  const what = `${collection} ${JSON.stringify(filter)}`;
  if (ferret !== undefined) {
    if (plan.filterPushdown !== true) return `not pushed down: ${what}`;
    if (text.includes('"Seq Scan"')) return `sequential scan: ${what}`;
    return true;
  }
  return text.includes("COLLSCAN") ? `collection scan: ${what}` : true;
}
