import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createUser, fromSeed } from "@nats-io/nkeys";
import {
  formatPeerKeys,
  type NatsPermissions,
  natsPermissions,
  SERVICE_NAMES,
  type ServiceName,
} from "@ramp/contracts";

/** A service's NATS user nkey: the seed stays with the service, the server gets only the public key. */
export interface ServiceNkey {
  seed: string;
  publicKey: string;
}
export type NatsCredentials = Readonly<Record<ServiceName, ServiceNkey>>;

/** Fresh nkeys for every service: test servers and Docker get new ones on every start. */
export function createNatsCredentials(): NatsCredentials {
  const entries = SERVICE_NAMES.map((svc) => {
    const kp = createUser();
    return [svc, { seed: new TextDecoder().decode(kp.getSeed()), publicKey: kp.getPublicKey() }] as const;
  });
  return Object.fromEntries(entries) as Record<ServiceName, ServiceNkey>;
}

/**
 * The credentials a kept NATS store was last started with (`credentials.json` in `dir`, readable by its
 * owner alone), else fresh ones written there: messages a stream still holds from the last start stay
 * signed by keys the services accept.
 */
export function keptNatsCredentials(dir: string): NatsCredentials {
  const file = join(dir, "credentials.json");
  if (existsSync(file)) {
    try {
      const seeds = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
      const entries = SERVICE_NAMES.map((svc) => {
        const seed = seeds[svc] ?? "";
        return [svc, { seed, publicKey: fromSeed(new TextEncoder().encode(seed)).getPublicKey() }] as const;
      });
      return Object.fromEntries(entries) as Record<ServiceName, ServiceNkey>;
    } catch {
      // unreadable or incomplete: new keys below
    }
  }
  const fresh = createNatsCredentials();
  mkdirSync(dir, { recursive: true });
  const seeds = Object.fromEntries(SERVICE_NAMES.map((svc) => [svc, fresh[svc].seed]));
  writeFileSync(file, `${JSON.stringify(seeds)}\n`, { mode: 0o600 });
  return fresh;
}

/** NATS_PEER_KEYS: every service's public key, with which each checks who signed what it consumes. */
export const peerKeysOf = (creds: NatsCredentials): string =>
  formatPeerKeys(Object.fromEntries(SERVICE_NAMES.map((svc) => [svc, creds[svc].publicKey])));

/** NATS_PEER_KEYS (every service's public key) for the services whose seeds are known. */
export function peerKeysFromSeeds(seeds: Partial<Record<ServiceName, string>>): string {
  const keys = Object.entries(seeds).flatMap(([svc, seed]) =>
    seed ? [[svc, fromSeed(new TextEncoder().encode(seed)).getPublicKey()] as const] : [],
  );
  return formatPeerKeys(Object.fromEntries(keys));
}

const envStem = (svc: ServiceName) => svc.toUpperCase().replace(/-/g, "_");
/** The variable holding a service's public nkey, read by nats-server in docker compose. */
export const natsNkeyEnv = (svc: ServiceName) => `${envStem(svc)}_NATS_NKEY`;
/** The variable holding a service's nkey seed, handed to that service as NATS_NKEY_SEED. */
export const natsSeedEnv = (svc: ServiceName) => `${envStem(svc)}_NATS_NKEY_SEED`;

/** Where the server config finds a user's public key: written in, or an environment variable read at start. */
export type NkeyRef = { publicKey: string } | { env: string };

/** One user of the server: a comment naming it, its public key and what it may do. */
export interface NatsUser {
  name: string;
  nkey: NkeyRef;
  permissions: NatsPermissions;
}

export interface NatsConfigOptions {
  /** host:port the server listens on. */
  listen: string;
  storeDir: string;
  /** Every service's key; each gets exactly the permissions contracts derive for it. */
  services: Readonly<Record<ServiceName, NkeyRef>>;
  /** Users beyond the services; only test servers have one (see testing.ts). */
  extraUsers?: readonly NatsUser[];
  /** Comment lines at the top. */
  header?: readonly string[];
  /** host:port of the monitoring endpoint (`/healthz` tells when JetStream is ready); none when unset. */
  monitorListen?: string;
  /** Whether the sandbox's request subjects are granted (default true: local and test servers run it). */
  sandbox?: boolean;
  /** Set to run as one node of a JetStream cluster. */
  cluster?: NatsClusterBlock;
}

/** One node's part in a cluster: its unique name, where it listens for routes, and the other nodes' routes. */
export interface NatsClusterBlock {
  /** Unique per node: JetStream places stream replicas by server name. */
  serverName: string;
  /** The cluster's name, the same on every node. */
  name: string;
  /** host:port this node accepts routes on. */
  listen: string;
  /** The other nodes' route addresses, host:port. */
  routes: readonly string[];
}

function renderCluster(c: NatsClusterBlock): string[] {
  return [
    `server_name: ${str(c.serverName)}`,
    "cluster {",
    `  name: ${str(c.name)}`,
    `  listen: ${str(c.listen)}`,
    `  routes: ${list(
      c.routes.map((r) => `nats-route://${r}`),
      "  ",
    )}`,
    "}",
  ];
}

const str = (s: string) => JSON.stringify(s);
const list = (xs: string[], indent: string) =>
  `[\n${xs.map((x) => `${indent}  ${str(x)},`).join("\n")}\n${indent}]`;

function renderUser({ name, nkey, permissions: p }: NatsUser): string {
  const i = "        ";
  return [
    `    # ${name}`,
    "    {",
    // nats-server resolves an unquoted $NAME from its environment.
    `      nkey: ${"env" in nkey ? `$${nkey.env}` : str(nkey.publicKey)}`,
    "      permissions: {",
    `        publish: { allow: ${list(p.publish.allow, i)} }`,
    `        subscribe: { allow: ${list(p.subscribe.allow, i)} }`,
    // One reply per request received, for 10 minutes rather than nats-server's default 2: opening an
    // export on a database that sorts in memory (FerretDB) can take minutes before its reply.
    ...(p.allowResponses ? ['        allow_responses: { max: 1, expires: "10m" }'] : []),
    "      }",
    "    }",
  ].join("\n");
}

/**
 * A nats-server configuration with JetStream and one user per service, holding exactly the permissions
 * contracts derive for it. There is no anonymous user: a connection without a known nkey is refused.
 */
export function renderNatsConfig(opts: NatsConfigOptions): string {
  const users: NatsUser[] = [
    ...SERVICE_NAMES.map((name) => ({
      name,
      nkey: opts.services[name],
      permissions: natsPermissions(name, { sandbox: opts.sandbox ?? true }),
    })),
    ...(opts.extraUsers ?? []),
  ];
  return [
    ...(opts.header ?? []).map((line) => `# ${line}`),
    `listen: ${str(opts.listen)}`,
    ...(opts.monitorListen ? [`http: ${str(opts.monitorListen)}`] : []),
    ...(opts.cluster ? renderCluster(opts.cluster) : []),
    `jetstream { store_dir: ${str(opts.storeDir)} }`,
    "authorization {",
    "  users: [",
    ...users.map(renderUser),
    "  ]",
    "}",
    "",
  ].join("\n");
}

/**
 * Credentials as `.env` lines for docker compose: each public key for nats-server, each seed for its
 * service, and NATS_PEER_KEYS (every public key) with which each service checks who signed a message.
 */
export function natsEnvLines(creds: NatsCredentials): string {
  const peers = peerKeysOf(creds);
  return `${SERVICE_NAMES.map(
    (svc) => `${natsNkeyEnv(svc)}=${creds[svc].publicKey}\n${natsSeedEnv(svc)}=${creds[svc].seed}\n`,
  ).join("")}NATS_PEER_KEYS=${peers}\n`;
}

/** An environment without any service's seed, so a child process inherits none but the one it is given. */
export function withoutNatsSeeds(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const seeds = new Set<string>(SERVICE_NAMES.map(natsSeedEnv));
  return Object.fromEntries(Object.entries(env).filter(([k]) => !seeds.has(k)));
}

/** Where the deployment's NATS configurations live, relative to the repository root: production's, and
 * the sandbox's (its request subjects granted too) for a deployment that runs the sandbox on purpose. */
export const DEPLOY_NATS_CONFIG = "deploy/nats/nats.conf";
export const DEPLOY_NATS_SANDBOX_CONFIG = "deploy/nats/nats.sandbox.conf";

/**
 * The NATS configuration docker compose (and any deployment) mounts: the services' public keys come from
 * `<SERVICE>_NATS_NKEY` in nats-server's environment, so the file holds no key and is committed.
 */
export function renderDeployNatsConfig(sandbox = false): string {
  const services = Object.fromEntries(SERVICE_NAMES.map((svc) => [svc, { env: natsNkeyEnv(svc) }])) as Record<
    ServiceName,
    NkeyRef
  >;
  return renderNatsConfig({
    header: [
      "Generated from packages/contracts by `npm run nats:config`; do not edit by hand.",
      "One user per service with the permissions contracts derive for it; no anonymous access.",
      "Each service's public nkey comes from <SERVICE>_NATS_NKEY (`npm run nats:keys` makes a set).",
      sandbox
        ? "Sandbox: the sandbox's request subjects are granted (deposits that no bank or chain made)."
        : "Production: the sandbox's request subjects are granted to nobody.",
    ],
    // Inside its container; compose publishes no NATS port.
    listen: "0.0.0.0:4222",
    storeDir: "/data",
    services,
    sandbox,
  });
}
