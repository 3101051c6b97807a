import { randomBytes } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { type Chain, Rpc, STREAMS, type StreamContract } from "@ramp/contracts";
import { startTestNats } from "@ramp/devinfra/testing";
import { callRpc, ensureStreams, type Stoppable } from "@ramp/runtime";
import { type Db, MongoClient } from "mongodb";
import { inject } from "vitest";
import type { z } from "zod";
import { loadChainWatcherConfig, startChainWatcher } from "../../src/index.ts";

export { eventually, sleep } from "@ramp/devinfra/testing";

export type Env = Record<string, string | undefined>;

/**
 * A NATS server of this test file's own and a fresh database name; chain-watcher instances on top.
 * `nc` is orders' connection (what calls chain-watcher and sends it transfer commands); `observer` reads
 * what chain-watcher published.
 */
export async function startHarness(baseEnv: Env = {}) {
  const nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  const nc = await nats.connectAs("orders");
  const observer = await nats.connectObserver();
  /** The gateway's connection: what the console's money operations call chain-watcher with. */
  const gateway = await nats.connectAs("gateway");
  await ensureStreams(nc);
  const database = `t${randomBytes(4).toString("hex")}_chain_watcher`;
  const env: Env = {
    ...nats.envFor("chain-watcher"),
    MONGODB_URI: inject("mongoUrl"),
    MONGODB_DATABASE: database,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    RAMP_SANDBOX: "true",
    POLL_INTERVAL_MS: "200",
    ...baseEnv,
  };
  const running = new Set<Stoppable>();
  let mongo: MongoClient | undefined;
  return {
    nc,
    gateway,
    observer,
    env,
    async startWatcher(extra: Env = {}): Promise<Stoppable> {
      const svc = await startChainWatcher(loadChainWatcherConfig({ ...env, ...extra }));
      running.add(svc);
      return {
        async stop() {
          running.delete(svc);
          await svc.stop();
        },
      };
    },
    /** chain-watcher's database, read directly by tests that check its stored state. */
    async db(): Promise<Db> {
      mongo ??= await MongoClient.connect(env.MONGODB_URI!);
      return mongo.db(database);
    },
    /** A deposit address for an offramp `ref` on `chain`, as orders asks for one. */
    async offrampAddress(chain: Chain, ref: string, mint: string): Promise<string> {
      const { address } = await callRpc(nc, Rpc.addressAllocate, {
        chain,
        purpose: "offramp",
        ref,
        mints: [mint],
      });
      return address;
    },
    async close() {
      for (const svc of running) await svc.stop();
      await mongo?.close();
      await nc.drain().catch(() => undefined);
      await observer.drain().catch(() => undefined);
      await gateway.drain().catch(() => undefined);
      await nats.stop();
    },
  };
}
export type Harness = Awaited<ReturnType<typeof startHarness>>;

export interface Received<T> {
  msgId: string | undefined;
  payload: T;
}

/** Everything published on one subject since the stream began, via an ordered (ephemeral) consumer. */
export async function collect<C extends StreamContract>(nc: NatsConnection, contract: C) {
  const js = jetstream(nc);
  const stream = contract.stream === STREAMS.events.name ? STREAMS.events.name : STREAMS.commands.name;
  const consumer = await js.consumers.get(stream, { filter_subjects: contract.subject });
  const messages = await consumer.consume();
  const received: Received<z.infer<C["payload"]>>[] = [];
  const loop = (async () => {
    for await (const m of messages) {
      // The server filters already, but a CI run once had this loop fail to parse a message shaped
      // like another subject's event, which ended the collector: the subject is checked here too.
      if (m.subject !== contract.subject) continue;
      const payload = contract.payload.safeParse(m.json());
      if (!payload.success) {
        throw new Error(`${m.subject} #${m.seq} breaks its contract: ${m.string()}`, {
          cause: payload.error,
        });
      }
      received.push({ msgId: m.headers?.get("Nats-Msg-Id"), payload: payload.data as z.infer<C["payload"]> });
    }
  })();
  return {
    received,
    async close() {
      await messages.close();
      await loop;
    },
  };
}
