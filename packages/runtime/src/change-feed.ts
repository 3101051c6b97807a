import { type KV, Kvm, KvWatchInclude } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { ChangeFeedContract } from "@ramp/contracts";
import { createExactCache, type ExactCache } from "./exact-cache.ts";
import { retryJetStreamSetup } from "./jetstream-setup.ts";
import type { Logger } from "./logger.ts";

export interface ChangeFeed<K extends string> {
  /** A read-through copy of one kind of record, dropped whenever any replica reports it changed. */
  cache<V extends NonNullable<unknown> | null, I extends string = string>(
    kind: K,
    load: (id: I) => Promise<V>,
    maxEntries?: number,
  ): ExactCache<V, I>;
  /**
   * Call after the database write: drops the record here at once and, through the bucket, on every other
   * replica. A failed publish throws, so the caller answers an error and the operator's retry (every
   * write here is safe to repeat) publishes again.
   */
  changed(kind: K, id: string): Promise<void>;
  stop(): Promise<void>;
}

const RETRY_WATCH_MS = 1_000;

/**
 * Keeps every replica of a service exact without a TTL: the writer puts `<kind>.<id>` into the service's
 * KV bucket after its database write; every replica watches the bucket and drops that record, so its next
 * read goes to its own database. A replica that may have missed changes forgets everything instead:
 * while its NATS connection is down or its watch is not running it reads through to the database, and
 * on reconnect or a re-established watch it starts from empty. (The watch's ordered consumer replays
 * what it missed only when the next change arrives; forgetting everything does not wait for that.)
 */
export async function openChangeFeed<K extends string>(
  nc: NatsConnection,
  contract: ChangeFeedContract<K>,
  log: Logger,
  replicas = 1,
): Promise<ChangeFeed<K>> {
  const kv: KV = await retryJetStreamSetup(
    `change feed ${contract.bucket}`,
    () => new Kvm(nc).create(contract.bucket, { history: 1, replicas }),
    { log },
  );
  const caches = new Map<string, Pick<ExactCache<null>, "drop" | "setLive">>();
  let stopped = false;
  let connected = true;
  let watching = false;

  const setLive = () => {
    for (const c of caches.values()) c.setLive(connected && watching);
  };
  const dropEntry = (key: string) => {
    const dot = key.indexOf(".");
    caches.get(key.slice(0, dot))?.drop(key.slice(dot + 1));
  };

  // The first watch is opened before the service answers anything, so no change can slip past it.
  let watch = await retryJetStreamSetup(
    `change watch ${contract.bucket}`,
    () => kv.watch({ include: KvWatchInclude.UpdatesOnly }),
    { log },
  );
  watching = true;
  const watchLoop = (async () => {
    while (!stopped) {
      try {
        for await (const entry of watch) dropEntry(entry.key);
      } catch (err) {
        log.warn({ err, bucket: contract.bucket }, "change watch failed");
      }
      if (stopped) break;
      watching = false;
      setLive();
      log.warn({ bucket: contract.bucket }, "change watch ended; reading through to the database");
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_WATCH_MS));
        if (stopped) return;
        try {
          watch = await kv.watch({ include: KvWatchInclude.UpdatesOnly });
          break;
        } catch (err) {
          log.warn({ err, bucket: contract.bucket }, "change watch not re-established");
        }
      }
      watching = true;
      setLive();
    }
  })();

  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") {
        connected = s.type === "reconnect";
        setLive();
      }
    }
  })();

  return {
    cache(kind, load, maxEntries) {
      const cache = createExactCache(load, maxEntries);
      caches.set(kind, cache);
      cache.setLive(connected && watching);
      return cache;
    },
    async changed(kind, id) {
      caches.get(kind)?.drop(id);
      await kv.put(`${kind}.${id}`, new Date().toISOString());
    },
    async stop() {
      stopped = true;
      watch.stop();
      await watchLoop;
    },
  };
}
