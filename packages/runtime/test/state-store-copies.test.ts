import { jetstream } from "@nats-io/jetstream";
import { Events } from "@ramp/contracts";
import {
  createClaims,
  createLogger,
  createStateStore,
  newTraceContext,
  outboxEntry,
  type StateChange,
  type StateStore,
  type WithOutbox,
} from "@ramp/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { useOutboxTestbed } from "./support/outbox-testbed.ts";

type State = "NEW" | "SENT" | "DONE";
interface Doc extends WithOutbox {
  _id: string;
  status: State;
  /** What each change reads and bumps, as an order's `sequence`. */
  rev: number;
}

const bed = useOutboxTestbed("copies", { mongo: { monitorCommands: true } });
/** Reads of the collection the driver sent (find, and findAndModify that matched nothing). */
const reads: string[] = [];
/** Writes of the collection the driver sent. */
const writes: string[] = [];
const log = createLogger("test", "silent");

beforeAll(() => {
  bed.mongo.on("commandStarted", (e) => {
    if (e.commandName === "find" && e.command.find === "docs") reads.push("find");
    if (["insert", "update", "findAndModify"].includes(e.commandName) && e.command[e.commandName] === "docs")
      writes.push(e.commandName);
  });
});

/**
 * A replica's store of its own (its own claims and remembered documents), as each process has. Its
 * published entries wait for removal until `drainRemovals`, however slow the machine.
 */
const replica = (): StateStore<Doc, State> =>
  createStateStore<Doc, State>({
    collection: bed.db.collection<Doc>("docs"),
    stateField: "status",
    claims: createClaims(bed.db),
    js: jetstream(bed.nc),
    log,
    decidedBy: ["rev"],
    removalLingerMs: 60_000,
  });

/** A change that bumps `rev` from the document it is made on and announces the new value. */
const bump = (id: string, from: State, to: State, cause: string): StateChange<Doc, State> => ({
  id,
  from,
  to,
  cause,
  set: (current) => ({ rev: current.rev + 1 }),
  events: (next) => [
    outboxEntry(
      Events.payoutResult,
      { orderId: `${id}:${next.rev}`, status: "COMPLETED", reference: id, reason: null },
      `${bed.db.databaseName}:${id}:${to}`,
      newTraceContext(),
    ),
  ],
});

const stored = (id: string) => bed.db.collection<Doc>("docs").findOne({ _id: id });

describe("a state change made on the copy a process already has", () => {
  it("reads nothing before its update while the copy is what is stored (on SQLite, reads first)", async () => {
    const a = replica();
    await a.insert({ _id: "fresh", status: "NEW", rev: 0, outbox: [] });
    reads.length = 0;
    writes.length = 0;
    const sent = await a.transition(bump("fresh", "NEW", "SENT", "send"));
    const done = await a.transition(bump("fresh", "SENT", "DONE", "answer"));
    expect(sent?.rev).toBe(1);
    expect(done?.rev).toBe(2);
    // FerretDB on SQLite finds a document by index only for a filter on `_id` alone, so there every
    // change reads first rather than filter on more; MongoDB and FerretDB on PostgreSQL read nothing.
    const info = await bed.db.admin().command({ buildInfo: 1 });
    const plan = await bed.db
      .collection<Doc>("docs")
      .find({ _id: "x", status: { $in: [] } })
      .explain();
    const readsFirst = "ferretdbVersion" in info && plan.filterPushdown !== true;
    expect(reads.length > 0).toBe(readsFirst);
    // The second change's update took the first change's published entry out with it.
    expect((await stored("fresh"))?.outbox.map((e) => e.msgId)).toEqual([
      `${bed.db.databaseName}:fresh:DONE`,
    ]);
    await a.drainRemovals();
    expect(await stored("fresh")).toMatchObject({ status: "DONE", rev: 2, outbox: [] });
    expect(await stored("fresh")).not.toHaveProperty("outboxPending");
    // Two changes and the removal of the last one's entry: no write of its own for the first one's.
    expect(writes).toEqual(["findAndModify", "findAndModify", "update"]);
  });

  it("reads the document when another process changed what the change is computed from", async () => {
    const a = replica();
    const b = replica();
    await a.insert({ _id: "stale", status: "NEW", rev: 0, outbox: [] });
    await a.transition(bump("stale", "NEW", "SENT", "send"));
    // Another replica changes a field the next change reads, the state staying as it was.
    expect(await b.update("stale", "SENT", {}, { rev: 7 })).toBe(true);
    reads.length = 0;
    const done = await a.transition(bump("stale", "SENT", "DONE", "answer"));
    // Computed from what is stored (7), not from the copy (1), and its event says so.
    expect(done?.rev).toBe(8);
    expect(done?.status).toBe("DONE");
    expect(reads.length).toBeGreaterThan(0);
    // What was published for this document: each change announced once, with what it stored.
    const consumer = await jetstream(bed.observer).consumers.get("RAMP_EVENTS", {
      filter_subjects: [Events.payoutResult.subject],
    });
    const published: string[] = [];
    for (let left = (await consumer.info()).num_pending; left > 0; left--) {
      const msg = await consumer.next({ expires: 5_000 });
      const orderId = (msg?.json() as { orderId: string } | undefined)?.orderId ?? "";
      if (orderId.startsWith("stale:")) published.push(orderId);
    }
    expect(published).toEqual(["stale:1", "stale:8"]);
  });

  it("leaves a document whose exit another process claimed, though the copy shows it open", async () => {
    const a = replica();
    const b = replica();
    await a.insert({ _id: "claimed", status: "NEW", rev: 0, outbox: [] });
    // As the expiry claims an unpaid order's exit before deleting it.
    expect(await b.claimExit("claimed", "NEW", "SENT", "expiry")).toBe(true);
    expect(await a.transition(bump("claimed", "NEW", "SENT", "deposit"))).toBeNull();
    expect(await stored("claimed")).toMatchObject({ status: "NEW", rev: 0 });
    // The cause that owns the exit still moves it.
    expect((await b.transition(bump("claimed", "NEW", "SENT", "expiry")))?.status).toBe("SENT");
  });

  it("is tried on the document the caller passes, and never moves one that has moved on", async () => {
    const a = replica();
    const b = replica();
    await b.insert({ _id: "passed", status: "NEW", rev: 0, outbox: [] });
    const seen = await stored("passed");
    await b.transition(bump("passed", "NEW", "SENT", "send"));
    await b.transition(bump("passed", "SENT", "DONE", "answer"));
    // The caller's copy says NEW; the document is DONE: nothing changes.
    expect(await a.transition({ ...bump("passed", "NEW", "SENT", "late"), seen })).toBeNull();
    expect(await stored("passed")).toMatchObject({ status: "DONE", rev: 2 });
  });
});
