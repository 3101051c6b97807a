import { type KV, Kvm, type KvWatchEntry, KvWatchInclude } from "@nats-io/kv";
import type { NatsConnection, QueuedIterator } from "@nats-io/transport-node";
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

/** What a watch of a change feed tells whoever keeps copies derived from its records. */
export interface ChangeListener<K extends string> {
  /** The record `<kind>.<id>` changed (or was removed): drop whatever was derived from it. */
  changed(kind: K, id: string): void;
  /**
   * `false` when a change may from now on go unseen (the connection or the watch is down), `true` when
   * changes reach this process again. Either way, anything kept so far may be stale: forget it all.
   */
  live(live: boolean): void;
}

const RETRY_WATCH_MS = 1_000;

type Watch = QueuedIterator<KvWatchEntry>;

/**
 * Keeps a watch of one change-feed bucket running and tells `listener` of every change and of every
 * time changes may have been missed. `first` is a watch already open (the owner opens it before it
 * answers anything); without it the listener is not live until `open` succeeds. A watch that ends or
 * cannot be opened is tried again every second.
 */
function keepWatching<K extends string>(
  nc: NatsConnection,
  bucket: string,
  log: Logger,
  open: () => Promise<Watch>,
  listener: ChangeListener<K>,
  first?: Watch,
): { stop(): Promise<void> } {
  let stopped = false;
  let connected = true;
  let watch = first;
  const setLive = () => listener.live(connected && watch !== undefined);
  const onEntry = (key: string) => {
    const dot = key.indexOf(".");
    listener.changed(key.slice(0, dot) as K, key.slice(dot + 1));
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, RETRY_WATCH_MS));
  if (!first) listener.live(false);

  let failures = 0;
  const loop = (async () => {
    while (!stopped) {
      if (!watch) {
        try {
          watch = await open();
          failures = 0;
        } catch (err) {
          // Once, then quietly: a follower started before the feed's owner retries every second.
          log[failures++ === 0 ? "warn" : "debug"](
            { err, bucket },
            "change watch not established; reading through",
          );
          await pause();
          continue;
        }
        if (stopped) break;
        setLive();
      }
      try {
        for await (const entry of watch) onEntry(entry.key);
      } catch (err) {
        log.warn({ err, bucket }, "change watch failed");
      }
      watch = undefined;
      if (stopped) break;
      setLive();
      log.warn({ bucket }, "change watch ended; reading through");
      await pause();
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
    async stop() {
      stopped = true;
      watch?.stop();
      await loop;
    },
  };
}

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
  let live = true;
  const open = () => kv.watch({ include: KvWatchInclude.UpdatesOnly });
  // The first watch is opened before the service answers anything, so no change can slip past it.
  const first = await retryJetStreamSetup(`change watch ${contract.bucket}`, open, { log });
  const watching = keepWatching<K>(
    nc,
    contract.bucket,
    log,
    open,
    {
      changed: (kind, id) => caches.get(kind)?.drop(id),
      live(next) {
        live = next;
        for (const c of caches.values()) c.setLive(next);
      },
    },
    first,
  );

  return {
    cache(kind, load, maxEntries) {
      const cache = createExactCache(load, maxEntries);
      caches.set(kind, cache);
      cache.setLive(live);
      return cache;
    },
    async changed(kind, id) {
      caches.get(kind)?.drop(id);
      await kv.put(`${kind}.${id}`, new Date().toISOString());
    },
    stop: watching.stop,
  };
}

/**
 * Watches another service's change feed, read-only (see `follows` in contracts' ownership.ts), for a
 * process that keeps answers derived from that service's records. The bucket is the owner's: this
 * neither creates it nor writes to it, and until the owner has created it (or while the watch is down)
 * the listener is not live. The caller must not keep an answer that predates a change it has already
 * seen: the owner's replicas may learn of a change a moment after this watch does.
 */
export function followChangeFeed<K extends string>(
  nc: NatsConnection,
  contract: ChangeFeedContract<K>,
  log: Logger,
  listener: ChangeListener<K>,
): { stop(): Promise<void> } {
  let kv: KV | undefined;
  return keepWatching<K>(
    nc,
    contract.bucket,
    log,
    async () => {
      kv ??= await new Kvm(nc).open(contract.bucket);
      return kv.watch({ include: KvWatchInclude.UpdatesOnly });
    },
    listener,
  );
}
