import type { Server } from "node:http";
import { type JetStreamClient, jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { HoldBuckets, type ServiceName, usesSharedStreams } from "@ramp/contracts";
import type { Db } from "mongodb";
import { type Claims, createClaims, createServiceClaims } from "./claims.ts";
import type { BaseConfig } from "./config.ts";
import { ed25519 } from "./ed25519.ts";
import { flushThrough } from "./flush-through.ts";
import { startHealthServer } from "./health.ts";
import { ensureStreams } from "./jetstream.ts";
import { abandonLogs, createLogger, endLogs, type Logger, lifecycleLogger } from "./logger.ts";
import { bindSigning, messageSigningFor } from "./message-signing.ts";
import { connectMongo } from "./mongo.ts";
import { natsIdentity } from "./nats-identity.ts";
import { coalesceWrites } from "./nats-write-coalescing.ts";
import { outliveLostOutput } from "./process-lifetime.ts";
import { trackConnection } from "./reconnect-aware-request.ts";
import { startTracing } from "./tracing.ts";

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
  /**
   * The service's claims and document holds, for every store it opens: holds in its own NATS KV hold
   * bucket where contracts give it one (`HoldBuckets`), else claim documents in its database.
   */
  claims: Claims;
}

export interface ServiceHandle<C extends BaseConfig> extends Stoppable {
  deps: ServiceDeps<C>;
  ready(): Promise<boolean>;
}

/** In-flight work (a webhook attempt, a rail call) gets this long to finish when a service stops. */
const PART_STOP_MS = 10_000;
/** A NATS drain or a database close gets this long before the connection is dropped instead. */
const CLOSE_MS = 3_000;
/** Past this the process exits anyway, so a stop always ends (well inside Kubernetes' default 30 s). */
const STOP_DEADLINE_MS = 25_000;

/** Waits for `work` at most `ms`; true when it finished, false (logged) when it failed or took too long. */
async function bounded(log: Logger, what: string, ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    const outcome = await Promise.race([work.then(() => "done" as const), timeout]);
    if (outcome === "timeout") log.warn({ ms }, `${what} did not finish in time; going on`);
    return outcome === "done";
  } catch (err) {
    log.error({ err }, `${what} failed`);
    return false;
  } finally {
    clearTimeout(timer);
  }
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
  const signing = messageSigningFor(name, config);
  const tracing = startTracing(name, config);
  const nc = await connect({
    servers: config.NATS_URL.split(","),
    ...natsIdentity(name, config.NATS_NKEY_SEED),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // NATS may be restarting (or not up yet, as in a fresh deployment): wait for it rather than exit.
    waitOnFirstConnect: true,
    // Otherwise every request (each JetStream publish, KV write) captures two stack traces up front in
    // case it fails: a tenth of a busy dispatcher's CPU. A failed request still says what failed.
    noAsyncTraces: true,
  });
  bindSigning(nc, signing);
  trackConnection(nc);
  // One socket write per event-loop turn (see nats-write-coalescing.ts).
  const recoalesce = coalesceWrites(nc);
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "reconnect") recoalesce();
      if (s.type === "disconnect" || s.type === "reconnect") log.warn({ status: s.type }, "nats connection");
      // A permission violation arrives here: a subject this service was not granted in contracts.
      if (s.type === "error") log.error({ err: s.error }, "nats error");
    }
  })();
  // Only services that publish or consume on the shared streams may create them (see permissions.ts).
  const js = usesSharedStreams(name)
    ? (await ensureStreams(nc, config.NATS_STREAM_REPLICAS, log)).js
    : jetstream(nc);
  const mongo = await connectMongo(
    config.MONGODB_URI,
    config.MONGODB_DATABASE ?? `ramp_${name.replace(/-/g, "_")}`,
  );
  const holdBucket = Object.values(HoldBuckets).find((b) => b.owner === name);
  const claims = holdBucket
    ? await createServiceClaims(nc, mongo.db, holdBucket, { replicas: config.NATS_STREAM_REPLICAS, log })
    : createClaims(mongo.db);
  const deps: ServiceDeps<C> = { name, config, log, nc, js, db: mongo.db, claims };
  const parts = await register(deps);
  // Subscriptions are only live once the server has them: flush, so "started" means "answering".
  await flushThrough(nc);
  const ready = async () => {
    if (nc.isClosed()) return false;
    await nc.flush();
    await mongo.db.command({ ping: 1 });
    return true;
  };
  let health: Server | undefined;
  if (config.HEALTH_PORT > 0) health = await startHealthServer(config.HEALTH_PORT, ready);
  // Which ed25519 signs and checks stream messages: libsodium, or Node's own where its binary did not load.
  const signatures = signing ? ed25519.name : "off";
  lifecycleLogger(log).info({ health: config.HEALTH_PORT || undefined, signatures }, "service started");
  return {
    deps,
    ready,
    async stop() {
      // Each step is bounded: with NATS or the database gone, a drain or close would otherwise wait
      // for a reconnect that never comes, and the process would hang past its orchestrator's patience.
      for (const p of [...parts].reverse()) await bounded(log, "handler stop", PART_STOP_MS, p.stop());
      if (!nc.isClosed()) {
        const drained = await bounded(log, "nats drain", CLOSE_MS, nc.drain());
        if (!drained) await nc.close().catch(() => undefined);
      }
      const closed = await bounded(log, "mongo close", CLOSE_MS, mongo.close());
      if (!closed) void mongo.client.close(true).catch(() => undefined);
      health?.close();
      // Last: the spans of the drain above are exported too.
      await bounded(log, "trace export", CLOSE_MS, tracing.stop());
      log.info("service stopped");
    },
  };
}

/** Exits once the log lines still held are written out (a second at most: see `endLogs`). */
const exitAfterLogs = (code: number) => void endLogs().then(() => process.exit(code));

/** The body of every main.ts: boot, then stop gracefully on SIGTERM/SIGINT, exit non-zero on a failed start. */
export function runMain(name: string, start: () => Promise<Stoppable>): void {
  outliveLostOutput();
  // Async wrapper: a config error thrown synchronously is reported like any failed start.
  (async () => start())().then(
    (svc) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`${name}: ${signal}, draining\n`);
        setTimeout(() => {
          process.stderr.write(`${name}: stop did not finish within ${STOP_DEADLINE_MS} ms; exiting\n`);
          abandonLogs();
          process.exit(1);
        }, STOP_DEADLINE_MS).unref();
        svc.stop().then(
          () => exitAfterLogs(0),
          (err: unknown) => {
            process.stderr.write(
              `${name}: stop failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
            );
            exitAfterLogs(1);
          },
        );
      };
      process.on("SIGTERM", () => shutdown("SIGTERM"));
      process.on("SIGINT", () => shutdown("SIGINT"));
    },
    (err: unknown) => {
      process.stderr.write(`${name}: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      exitAfterLogs(1);
    },
  );
}
