import type { JetStreamClient } from "@nats-io/jetstream";
import { Commands, Events, type StreamContract } from "@ramp/contracts";
import type { Collection, Document } from "mongodb";
import type { z } from "zod";
import { publish } from "./jetstream.ts";
import type { Logger } from "./logger.ts";
import type { TraceContext } from "./trace.ts";

/** A message saved in the same update as the state change that caused it (DESIGN §4). */
export interface OutboxEntry {
  msgId: string;
  subject: string;
  payload: unknown;
  requestId: string;
  traceparent: string;
}

export interface WithOutbox {
  outbox: OutboxEntry[];
}

const bySubject = new Map<string, StreamContract>(
  [...Object.values(Events), ...Object.values(Commands)].map((c) => [c.subject, c]),
);

export function outboxEntry<C extends StreamContract>(
  contract: C,
  payload: z.input<C["payload"]>,
  msgId: string,
  trace: TraceContext,
): OutboxEntry {
  return {
    msgId,
    subject: contract.subject,
    payload: contract.payload.parse(payload),
    requestId: trace.requestId,
    traceparent: trace.traceparent,
  };
}

/** Publishes what a document's outbox holds, then pulls each published entry off. Safe to run twice. */
export async function flushOutbox<T extends Document & WithOutbox>(
  js: JetStreamClient,
  collection: Collection<T>,
  id: T["_id"],
  log: Logger,
): Promise<void> {
  const doc = await collection.findOne({ _id: id } as never, { projection: { outbox: 1 } });
  for (const entry of (doc?.outbox as OutboxEntry[] | undefined) ?? []) {
    const contract = bySubject.get(entry.subject);
    if (!contract) {
      log.error({ subject: entry.subject }, "outbox entry for an unknown subject");
      continue;
    }
    await publish(js, contract, entry.payload as never, entry.msgId, {
      requestId: entry.requestId,
      traceparent: entry.traceparent,
    });
    await collection.updateOne({ _id: id } as never, { $pull: { outbox: { msgId: entry.msgId } } } as never);
  }
}

/** Re-sends anything a crash left in outboxes. Runs at start-up and then every `intervalMs`. */
export function startOutboxSweeper<T extends Document & WithOutbox>(
  js: JetStreamClient,
  collection: Collection<T>,
  log: Logger,
  intervalMs = 2_000,
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    const pending = await collection
      .find({ "outbox.0": { $exists: true } } as never, { projection: { _id: 1 } })
      .limit(500)
      .toArray();
    for (const doc of pending) {
      await flushOutbox(js, collection, doc._id as T["_id"], log).catch((err) =>
        log.warn({ err }, "outbox flush failed"),
      );
    }
  };
  const tick = () => {
    running = sweep().catch((err) => log.warn({ err }, "outbox sweep failed"));
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
