import { jetstream } from "@nats-io/jetstream";
import { Events } from "@ramp/contracts";
import { eventually } from "@ramp/devinfra/testing";
import {
  createLogger,
  createOutboxCollection,
  flushOutbox,
  newTraceContext,
  OUTBOX_PENDING,
  type OutboxEntry,
  outboxEntry,
  startOutboxSweeper,
  type WithOutbox,
} from "@ramp/runtime";
import { type Collection, MongoClient } from "mongodb";
import { describe, expect, inject, it } from "vitest";
import { useOutboxTestbed } from "./support/outbox-testbed.ts";

interface Doc extends WithOutbox {
  _id: string;
  n: number;
  /** Set by the stores' writes beside queued entries (see OUTBOX_PENDING). */
  outboxPending?: boolean;
}

const bed = useOutboxTestbed("outbox");
const log = createLogger("test", "silent");

const entry = (msgId: string, at: Date): OutboxEntry => ({
  ...outboxEntry(
    Events.payoutResult,
    { orderId: msgId, status: "COMPLETED", reference: msgId, reason: null },
    msgId,
    newTraceContext(),
  ),
  at,
});

/** msgIds that reached the stream, read back with an ordered consumer. */
async function published(prefix: string): Promise<Set<string>> {
  const js = jetstream(bed.observer);
  const consumer = await js.consumers.get("RAMP_EVENTS", { filter_subjects: [Events.payoutResult.subject] });
  const seen = new Set<string>();
  const info = await consumer.info();
  let left = info.num_pending;
  if (left === 0) return seen;
  const it = await consumer.consume();
  for await (const m of it) {
    const id = (m.json() as { orderId: string }).orderId;
    if (id.startsWith(prefix)) seen.add(id);
    if (--left === 0) break;
  }
  await it.close();
  return seen;
}

const pending = (col: Collection<Doc>) => col.countDocuments({ "outbox.0": { $exists: true } });

describe("outbox", () => {
  it("removes exactly the published entry, leaving one queued meanwhile", async () => {
    const col = bed.db.collection<Doc>("exact");
    await col.insertOne({ _id: "d", n: 0, outbox: [entry("exact-1", new Date())] });
    const js = jetstream(bed.nc);
    expect(await flushOutbox(js, col, "d")).toBe(1);
    await col.updateOne({ _id: "d" }, { $push: { outbox: entry("exact-2", new Date()) } });
    const doc = await col.findOne({ _id: "d" });
    expect(doc?.outbox.map((e) => e.msgId)).toEqual(["exact-2"]);
  });

  it("keeps the sweep's flag while an entry queued after the read is still unsent", async () => {
    const col = bed.db.collection<Doc>("queued-meanwhile");
    const first = entry("meanwhile-1", new Date());
    await col.insertOne({ _id: "m", n: 0, outbox: [first], [OUTBOX_PENDING]: true });
    // The writer pushes a second entry after the flush read the outbox (it was handed the first only).
    await col.updateOne({ _id: "m" }, { $push: { outbox: entry("meanwhile-2", new Date()) } });
    expect(await flushOutbox(jetstream(bed.nc), col, "m", { stored: [first] })).toBe(1);
    const doc = await col.findOne({ _id: "m" });
    expect(doc?.outbox.map((e) => e.msgId)).toEqual(["meanwhile-2"]);
    expect(doc?.[OUTBOX_PENDING]).toBe(true);
  });

  it("an inserted document's events go out at once, from what was inserted, leaving nothing for a sweep", async () => {
    const watched = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
    const reads: string[] = [];
    const writes: string[] = [];
    watched.on("commandStarted", (e) => {
      if (e.commandName === "find" || e.commandName === "findAndModify") reads.push(e.commandName);
      if (e.commandName === "insert" || e.commandName === "update") writes.push(e.commandName);
    });
    const col = watched.db(bed.db.databaseName).collection<Doc>("inserted");
    const store = createOutboxCollection<Doc>({ collection: col, js: jetstream(bed.nc), log });
    // A field left undefined is stored as null; the removal still finds the entry.
    const withUndefined = { ...entry("inserted-1", new Date()), note: undefined };
    try {
      expect(await store.insert({ _id: "i1", n: 1, outbox: [withUndefined] })).toBe(true);
      await store.drainRemovals();
      expect(reads).toEqual([]);
      // One write after the insert empties the outbox and unsets the sweep's flag: no sweep write left.
      expect(writes).toEqual(["insert", "update"]);
      const stored = await col.findOne({ _id: "i1" });
      expect(stored?.outbox).toEqual([]);
      expect(stored && OUTBOX_PENDING in stored).toBe(false);
    } finally {
      await watched.close();
    }
    expect(await published("inserted-")).toEqual(new Set(["inserted-1"]));
  });

  it("with more than 1,000 documents of history, an event saved but never published still goes out", async () => {
    const col = bed.db.collection<Doc>("history");
    // 1,050 documents whose events were saved and never sent (a crash window each), oldest first…
    const base = Date.now() - 60_000;
    const history: Doc[] = Array.from({ length: 1_050 }, (_, i) => ({
      _id: `h${String(i).padStart(5, "0")}`,
      n: i,
      outbox: [entry(`hist-${i}`, new Date(base + i))],
      [OUTBOX_PENDING]: true,
    }));
    for (let i = 0; i < history.length; i += 250) await col.insertMany(history.slice(i, i + 250));
    const sweeper = startOutboxSweeper(jetstream(bed.nc), col, log, {
      intervalMs: 200,
      pageSize: 100,
      graceMs: 0,
    });
    try {
      await eventually(async () => ((await pending(col)) === 0 ? true : undefined), 280_000, 500);
      // …then one more, the newest, saved in the crash window after all that history was drained.
      await col.insertOne({
        _id: "z-late",
        n: -1,
        outbox: [entry("late-1", new Date())],
        [OUTBOX_PENDING]: true,
      });
      await eventually(async () => ((await pending(col)) === 0 ? true : undefined), 20_000, 200);
    } finally {
      await sweeper.stop();
    }
    const hist = await published("hist-");
    expect(hist.size).toBe(1_050);
    expect(await published("late-")).toEqual(new Set(["late-1"]));
  }, 300_000);
});
