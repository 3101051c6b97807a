import type { Server } from "node:http";
import type { JetStreamClient } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { ServiceName } from "@ramp/contracts";
import type { Db } from "mongodb";
import type { BaseConfig } from "./config.ts";
import { startHealthServer } from "./health.ts";
import { ensureStreams } from "./jetstream.ts";
import { createLogger, type Logger } from "./logger.ts";
import { connectMongo } from "./mongo.ts";
import { natsIdentity } from "./nats-identity.ts";

export interface Stoppable {
  stop(): Promise<void>;
}

export interface ServiceDeps<C extends BaseConfig> {
  name: string;
  config: C;
  log: Logger;
  nc: NatsConnection;
  js: JetStreamClient;
  db: Db;
}

export interface ServiceHandle<C extends BaseConfig> extends Stoppable {
  deps: ServiceDeps<C>;
  ready(): Promise<boolean>;
}

/**
 * Wires config → logger → NATS → Mongo → handlers and returns one stop() that drains in reverse order:
 * handlers finish in-flight work, NATS drains, Mongo closes.
 */
export async function bootService<C extends BaseConfig>(
  name: ServiceName,
  config: C,
  register: (deps: ServiceDeps<C>) => Promise<Stoppable[]>,
): Promise<ServiceHandle<C>> {
  const log = createLogger(name, config.LOG_LEVEL);
  const nc = await connect({
    servers: config.NATS_URL.split(","),
    ...natsIdentity(name, config.NATS_NKEY_SEED),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") log.warn({ status: s.type }, "nats connection");
      // A permission violation arrives here: a subject this service was not granted in contracts.
      if (s.type === "error") log.error({ err: s.error }, "nats error");
    }
  })();
  const { js } = await ensureStreams(nc, config.NATS_STREAM_REPLICAS);
  const mongo = await connectMongo(
    config.MONGODB_URI,
    config.MONGODB_DATABASE ?? `ramp_${name.replace(/-/g, "_")}`,
  );
  const deps: ServiceDeps<C> = { name, config, log, nc, js, db: mongo.db };
  const parts = await register(deps);
  // Subscriptions are only live once the server has them: flush, so "started" means "answering".
  await nc.flush();
  const ready = async () => {
    if (nc.isClosed()) return false;
    await nc.flush();
    await mongo.db.command({ ping: 1 });
    return true;
  };
  let health: Server | undefined;
  if (config.HEALTH_PORT > 0) health = await startHealthServer(config.HEALTH_PORT, ready);
  log.info({ health: config.HEALTH_PORT || undefined }, "service started");
  return {
    deps,
    ready,
    async stop() {
      for (const p of [...parts].reverse()) await p.stop().catch((err) => log.error({ err }, "stop failed"));
      if (!nc.isClosed()) await nc.drain().catch(() => undefined);
      await mongo.close();
      health?.close();
      log.info("service stopped");
    },
  };
}

/** The body of every main.ts: boot, then stop gracefully on SIGTERM/SIGINT, exit non-zero on a failed start. */
export function runMain(name: string, start: () => Promise<Stoppable>): void {
  start().then(
    (svc) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`${name}: ${signal}, draining\n`);
        svc.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.on("SIGTERM", () => shutdown("SIGTERM"));
      process.on("SIGINT", () => shutdown("SIGINT"));
    },
    (err: unknown) => {
      process.stderr.write(`${name}: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
