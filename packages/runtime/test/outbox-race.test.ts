import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Events, HoldBuckets } from "@ramp/contracts";
import { eventually } from "@ramp/devinfra/testing";
import {
  createClaims,
  createLogger,
  createStateStore,
  newTraceContext,
  type OutboxEntry,
  openKvHoldLocks,
  outboxEntry,
  type StateStore,
  type WithOutbox,
} from "@ramp/runtime";
import { describe, expect, it } from "vitest";
import { useOutboxTestbed } from "./support/outbox-testbed.ts";

type State = "NEW" | "SENT" | "DONE";
type HoldsIn = "database" | "NATS KV";
interface Doc extends WithOutbox {
  _id: string;
  status: State;
}

// Two "replicas" of the entries' publisher.
const bed = useOutboxTestbed("outbox_race", { publishers: 2 });
const log = createLogger("test", "silent");

const events = (id: string, step: string, count: number) => (): OutboxEntry[] =>
  Array.from({ length: count }, (_, i) =>
    outboxEntry(
      Events.payoutResult,
      { orderId: `${id}:${step}:${i}`, status: "COMPLETED", reference: id, reason: null },
      `${id}:${step}:${i}`,
      newTraceContext(),
    ),
  );

/** A replica's store; its document holds in the database or, as the services run, in NATS KV. */
async function store(
  nc: NatsConnection,
  collection: string,
  holdsIn: HoldsIn,
): Promise<StateStore<Doc, State>> {
  const holds =
    holdsIn === "NATS KV" ? await openKvHoldLocks(nc, HoldBuckets.banking, { replicas: 1, log }) : undefined;
  return createStateStore<Doc, State>({
    collection: bed.db.collection<Doc>(collection),
    stateField: "status",
    claims: createClaims(bed.db, { holds }),
    js: jetstream(nc),
    log,
  });
}

/** A handler that throws is run again, as JetStream redelivers an unacknowledged message. */
async function redelivered<T>(handle: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle();
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

describe("a state change racing the removal of the previous change's events", () => {
  /**
   * What a payout does: one replica moves an order and publishes its events; the event makes another
   * service answer at once, and the answer moves the same order again — in another replica, while the
   * first is still removing the entries it published. On a database whose updates rewrite the whole
   * document (FerretDB), that removal used to overwrite the second change: the order stayed behind.
   */
  it.each(["database", "NATS KV"] as const)(
    "is never lost, whichever replica handles the reaction (holds in %s)",
    async (holdsIn) => {
      const collection = `race_${holdsIn === "database" ? "db" : "kv"}`;
      const [replicaA, replicaB] = bed.publishers as [NatsConnection, NatsConnection];
      const a = await store(replicaA, collection, holdsIn);
      const b = await store(replicaB, collection, holdsIn);
      // Each replica sweeps what a failed flush left, as the services do.
      const sweepers = [a, b].map((s) => s.startSweeper({ intervalMs: 200, graceMs: 500 }));
      // Ids of this run alone: the stream still holds the other run's events, and JetStream would drop
      // this run's as duplicates of theirs.
      const offset = holdsIn === "database" ? 0 : 1000;
      const ids = Array.from({ length: 80 }, (_, i) => `r${i + offset}`);
      const ours = new Set(ids);
      const reacted: Promise<unknown>[] = [];
      // The reaction reads the event from the stream, as the answering service does.
      const consumer = await jetstream(bed.observer).consumers.get("RAMP_EVENTS", {
        filter_subjects: [Events.payoutResult.subject],
      });
      const messages = await consumer.consume();
      const reacting = (async () => {
        for await (const msg of messages) {
          const [id, step, index] = (msg.json() as { orderId: string }).orderId.split(":");
          if (!id || !ours.has(id) || step !== "sent" || index !== "0") continue;
          // The reaction goes to either replica, as a JetStream consumer would spread it.
          const handler = Number(id.slice(1)) % 2 ? a : b;
          reacted.push(
            redelivered(() =>
              handler.transition({
                id,
                from: "SENT",
                to: "DONE",
                cause: "answer",
                events: events(id, "done", 1),
              }),
            ),
          );
        }
      })();
      for (const id of ids) await a.insert({ _id: id, status: "NEW", outbox: [] });
      await Promise.all(
        ids.map((id) =>
          redelivered(() =>
            a.transition({ id, from: "NEW", to: "SENT", cause: "send", events: events(id, "sent", 3) }),
          ),
        ),
      );
      await eventually(async () => (reacted.length === ids.length ? true : undefined), 120_000, 50);
      await Promise.all(reacted);
      await messages.close();
      await reacting;
      await eventually(
        async () =>
          (await bed.db.collection<Doc>(collection).countDocuments({ "outbox.0": { $exists: true } })) ===
            0 || undefined,
        60_000,
        200,
      ).catch(() => undefined);
      await Promise.all(sweepers.map((s) => s.stop()));
      const docs = await bed.db.collection<Doc>(collection).find({}).toArray();
      const behind = docs.filter((d) => d.status !== "DONE").map((d) => d._id);
      expect(behind).toEqual([]);
      expect(docs.filter((d) => d.outbox.length > 0).map((d) => d._id)).toEqual([]);
    },
    240_000,
  );
});
