import type { ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { NatsCredentials, NatsUser } from "./nats-auth.ts";
import {
  freePort,
  type LaunchOptions,
  launch,
  type RunningProcess,
  stopper,
  waitForPort,
  writeNatsConfig,
} from "./processes.ts";

export interface NatsClusterOptions extends LaunchOptions {
  /** Nodes in the cluster; 3 lets JetStream keep a quorum with one node down. */
  size?: number;
  /** Every node gets one user per service (permissions from contracts); no anonymous access. */
  credentials: NatsCredentials;
  extraUsers?: readonly NatsUser[];
  /** How long a node may take until JetStream answers healthy (meta leader known, streams current). */
  readyTimeoutMs?: number;
}

interface NodePorts {
  name: string;
  client: number;
  route: number;
  monitor: number;
}

/** A local JetStream cluster: every node on loopback, each with its own ports, store and name. */
export interface NatsCluster {
  /** Every node's client URL, comma-separated, as NATS_URL takes them. */
  readonly url: string;
  readonly urls: readonly string[];
  readonly size: number;
  /** Whether node `i` is running. */
  up(i: number): boolean;
  /** `kill -9` node `i` and wait for its exit: no shutdown, no leadership hand-over. */
  kill(i: number): Promise<void>;
  /** Start node `i` again on the same ports and store; resolves once JetStream on it is healthy. */
  start(i: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls the node's `/healthz`, which answers 200 only once JetStream there is ready to serve. */
async function waitHealthy(monitorPort: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`nats-server on monitor port ${monitorPort} exited while starting`);
    const ok = await fetch(`http://127.0.0.1:${monitorPort}/healthz`, { signal: AbortSignal.timeout(2_000) })
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`nats-server on monitor port ${monitorPort} not healthy within ${timeoutMs} ms`);
}

/**
 * Starts `size` nats-server nodes routed to each other, each with JetStream and the same users as the
 * single local server, and resolves once every node reports JetStream healthy (a meta leader elected).
 */
export async function startNatsCluster(
  bin: string,
  dataDir: string,
  opts: NatsClusterOptions,
): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const ports: NodePorts[] = [];
  for (let i = 0; i < size; i++)
    ports.push({
      name: `n${i + 1}`,
      client: await freePort(),
      route: await freePort(),
      monitor: await freePort(),
    });
  const clusterName = `ramp-${ports[0]?.client}`;
  const nodes: Array<RunningProcess | undefined> = ports.map(() => undefined);
  const node = (i: number): NodePorts => {
    const p = ports[i];
    if (!p) throw new Error(`no node ${i} in a cluster of ${size}`);
    return p;
  };

  const launchNode = (i: number): RunningProcess => {
    const p = node(i);
    const dir = join(dataDir, `nats-${p.name}-${p.client}`);
    mkdirSync(dir, { recursive: true });
    const conf = writeNatsConfig(dir, opts.credentials, {
      listen: `127.0.0.1:${p.client}`,
      monitorListen: `127.0.0.1:${p.monitor}`,
      extraUsers: opts.extraUsers ?? [],
      cluster: {
        serverName: p.name,
        name: clusterName,
        listen: `127.0.0.1:${p.route}`,
        routes: ports.filter((o) => o !== p).map((o) => `127.0.0.1:${o.route}`),
      },
    });
    const child = launch(bin, ["-c", conf], join(dataDir, `nats-${p.name}-${p.client}.log`), opts);
    const running = { url: `nats://127.0.0.1:${p.client}`, port: p.client, child, stop: stopper(child) };
    nodes[i] = running;
    return running;
  };

  const cluster: NatsCluster = {
    urls: ports.map((p) => `nats://127.0.0.1:${p.client}`),
    get url() {
      return this.urls.join(",");
    },
    size,
    up: (i) => {
      const c = nodes[i]?.child;
      return c !== undefined && c.exitCode === null && c.signalCode === null;
    },
    async kill(i) {
      const running = nodes[i];
      if (!running || !cluster.up(i)) return;
      const exited = new Promise<void>((r) => running.child.once("exit", () => r()));
      running.child.kill("SIGKILL");
      await exited;
    },
    async start(i) {
      if (cluster.up(i)) return;
      const running = launchNode(i);
      await waitForPort(node(i).client);
      await waitHealthy(node(i).monitor, running.child, readyTimeoutMs);
    },
    async stop() {
      await Promise.all(nodes.map((n) => n?.stop()));
    },
  };
  try {
    // Every node at once: none is healthy until enough of them have met to elect a meta leader.
    const started = ports.map((_, i) => launchNode(i));
    await Promise.all(ports.map((p) => waitForPort(p.client)));
    await Promise.all(started.map((r, i) => waitHealthy(node(i).monitor, r.child, readyTimeoutMs)));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
