import type { JetStreamClient } from "@nats-io/jetstream";
import {
  type ChangeFeeds,
  type ChangeKind,
  Events,
  type ExceptionResolved,
  type ExceptionSignal,
} from "@ramp/contracts";
import {
  type ChangeFeed,
  flushOrDefer,
  type Logger,
  OUTBOX_PENDING,
  type OutboxEntry,
  outboxEntry,
  type Stoppable,
  sha256Hex,
  startOutboxSweeper,
  type TraceContext,
} from "@ramp/runtime";
import type { Db } from "mongodb";

/**
 * An endpoint URL's health: since when every attempt to it has failed, and whether it is paused. A
 * paused URL gets no attempts; its deliveries wait in the queue until it is resumed (its URL saved
 * again, or its exception resolved), then go out, each order's statuses in order as always.
 */
export interface EndpointHealthDoc {
  /** A hash of the URL: it names the record in the change feed, whose keys cannot hold a URL. */
  _id: string;
  url: string;
  apiKeyId: string | null;
  /** The first failure of the current run of failures; null while the last attempt succeeded. */
  failingSince: Date | null;
  paused: boolean;
  /** When it was last resumed: deliveries held back then come back in order (deliver.ts). */
  resumedAt?: Date | null;
  /** The exception the pause raised: one per run of failures. */
  exceptionKey: string | null;
  outbox: OutboxEntry[];
}

type Kind = ChangeKind<typeof ChangeFeeds.webhooks>;

export interface HealthOptions {
  /** A URL failing every attempt this long is paused (WEBHOOK_DISABLE_AFTER_HOURS). */
  disableAfterMs: number;
  /** How long a delivery to a paused URL waits in the queue before looking again. */
  recheckMs: number;
  now?: () => number;
}

export const endpointKey = (url: string) => sha256Hex(url).slice(0, 32);

/** The dispatcher's hook into each delivery step (deliver.ts): before the attempt and after it. */
export interface EndpointHealth {
  /** Whether to hold the delivery back (for `recheckMs`), and when the URL was last resumed (ms). */
  state(url: string): Promise<{ paused: boolean; resumedAt: number | null }>;
  readonly recheckMs: number;
  /** One attempt's outcome: a success ends a run of failures, a failure may pause the URL. */
  record(url: string, apiKeyId: string | null, delivered: boolean, trace: TraceContext): Promise<void>;
}

export interface EndpointHealthControl extends EndpointHealth {
  init(): Promise<void>;
  /** The URLs were saved again (webhook config PATCH): resumes each that is paused. */
  saved(urls: string[], trace: TraceContext): Promise<void>;
  /** The queue resolved an exception: resumes the URL it paused. */
  resolved(ev: ExceptionResolved, trace: TraceContext): Promise<void>;
  startSweeper(): Stoppable;
}

export function createEndpointHealth(deps: {
  db: Db;
  js: JetStreamClient;
  changes: ChangeFeed<Kind>;
  log: Logger;
  opts: HealthOptions;
}): EndpointHealthControl {
  const { js, changes, log, opts } = deps;
  const now = opts.now ?? Date.now;
  const col = deps.db.collection<EndpointHealthDoc>("endpoint_health");
  // Every attempt reads this: served from memory, dropped on every replica at each change.
  const cached = changes.cache("health", (id: string) => col.findOne({ _id: id }));
  const changed = (id: string) => changes.changed("health", id);

  const signal = (payload: ExceptionSignal, trace: TraceContext) =>
    outboxEntry(Events.webhookExceptions, payload, `${payload.key}:${payload.action}`, trace);

  async function resume(
    filter: { _id: string } | { exceptionKey: string },
    why: string,
    trace: TraceContext,
  ) {
    const current = await col.findOne({ ...filter, paused: true });
    if (!current?.exceptionKey) return;
    const clear = signal({ action: "clear", key: current.exceptionKey, note: why }, trace);
    const doc = await col.findOneAndUpdate(
      { _id: current._id, paused: true },
      {
        $set: {
          paused: false,
          failingSince: null,
          resumedAt: new Date(now()),
          outbox: [clear],
          [OUTBOX_PENDING]: true,
        },
      },
      { returnDocument: "after" },
    );
    if (!doc) return;
    await changed(doc._id);
    log.info({ url: doc.url, why }, "webhook endpoint resumed; its deliveries go out");
    await flushOrDefer(js, col, doc._id, log, { stored: doc.outbox });
  }

  async function pause(doc: EndpointHealthDoc, since: Date, trace: TraceContext) {
    const exceptionKey = `webhook-endpoint-failing:${doc._id}:${since.getTime()}`;
    const raise = signal(
      {
        action: "raise",
        key: exceptionKey,
        kind: "webhook-endpoint-failing",
        businessId: null,
        since: since.toISOString(),
        detail: `Every attempt to ${doc.url}${doc.apiKeyId ? ` (API key ${doc.apiKeyId})` : ""} has failed since ${since.toISOString()}: it is paused and its deliveries wait. Saving the URL again or resolving this resumes it.`,
      },
      trace,
    );
    const paused = await col.findOneAndUpdate(
      { _id: doc._id, paused: false, failingSince: since },
      { $set: { paused: true, exceptionKey, outbox: [raise], [OUTBOX_PENDING]: true } },
      { returnDocument: "after" },
    );
    if (!paused) return;
    await changed(doc._id);
    log.warn({ url: doc.url, since }, "webhook endpoint failing for too long; paused");
    await flushOrDefer(js, col, doc._id, log, { stored: paused.outbox });
  }

  return {
    recheckMs: opts.recheckMs,
    async init() {
      await col.createIndex({ exceptionKey: 1 }, { sparse: true });
    },
    async state(url) {
      const doc = await cached.get(endpointKey(url));
      return { paused: doc?.paused === true, resumedAt: doc?.resumedAt?.getTime() ?? null };
    },
    async record(url, apiKeyId, delivered, trace) {
      const id = endpointKey(url);
      const known = await cached.get(id);
      if (delivered) {
        // Writes only when a run of failures ends: a healthy endpoint costs no write per attempt.
        if (!known?.failingSince) return;
        await col.updateOne({ _id: id, paused: false }, { $set: { failingSince: null } });
        await changed(id);
        return;
      }
      if (!known?.failingSince) {
        await col.updateOne(
          { _id: id },
          {
            $setOnInsert: {
              url,
              apiKeyId,
              failingSince: null,
              paused: false,
              exceptionKey: null,
              outbox: [],
            },
          },
          { upsert: true },
        );
        await col.updateOne({ _id: id, failingSince: null }, { $set: { failingSince: new Date(now()) } });
        await changed(id);
      }
      const doc = await cached.get(id);
      if (!doc?.failingSince || doc.paused) return;
      if (now() - doc.failingSince.getTime() >= opts.disableAfterMs)
        await pause(doc, doc.failingSince, trace);
    },
    async saved(urls, trace) {
      for (const url of urls) await resume({ _id: endpointKey(url) }, "its URL was saved again", trace);
    },
    async resolved(ev, trace) {
      if (ev.kind !== "webhook-endpoint-failing") return;
      await resume({ exceptionKey: ev.key }, `resolved: ${ev.note}`, trace);
    },
    startSweeper: () => startOutboxSweeper(js, col, log),
  };
}
