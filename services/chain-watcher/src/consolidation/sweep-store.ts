import { randomUUID } from "node:crypto";
import type { Chain } from "@ramp/contracts";
import { isDuplicateKey } from "@ramp/runtime";
import type { Db } from "mongodb";

/**
 * due → gas (top-up sent or not needed) → tokens → removed. `held`: given up after repeated failed
 * rounds, kept for the operator, whose resolving its `stuck` exception makes it due again. Only addresses with work left are in the collection, so the
 * consolidator reads a handful of documents, never the history of every deposit address.
 */
export type SweepStatus = "due" | "gas" | "tokens" | "held";

export interface SweepDoc {
  _id: string; // `${chain}:${address key}:${mint}`
  chain: Chain;
  address: string;
  /** HD index of the deposit address, whose key signs the sweep. */
  index: number;
  mint: string;
  status: SweepStatus;
  /** Fresh each time the address becomes due, so its transfers' request ids are never reused. */
  cycle: string;
  /** A failed step starts a new round (new request ids) from a fresh balance reading. */
  round: number;
  /** Token units to move, read when the round started; the gas top-up for it, "0" when none. */
  amount: string | null;
  gas: string | null;
  /** Transient failures of the current step, for the executor's retry bound. */
  attempts: number;
  reason: string | null;
  /** Became due again while a round was under way (a deposit arrived meanwhile): one more round follows. */
  again?: boolean;
  dueAt: Date;
  updatedAt: Date;
}

/** Inserts tried against a sweep that keeps finishing in between (each time a round ends). */
const MARK_DUE_ATTEMPTS = 5;

export type SweepTarget = Pick<SweepDoc, "chain" | "address" | "index" | "mint">;

export interface SweepStore {
  ensureIndexes(): Promise<void>;
  /** The address becomes due, unless it already is (a repeat of the same event changes nothing). */
  markDue(target: SweepTarget, key: string): Promise<void>;
  pending(limit: number): Promise<SweepDoc[]>;
  /** Sweeps held for an operator: few, each one an open exception. */
  held(): Promise<SweepDoc[]>;
  /** Moves a sweep on from `from` (in its current round); false when someone else already did. */
  advance(doc: SweepDoc, set: Partial<SweepDoc>): Promise<boolean>;
  /** Counts a transient failure of the current step. */
  failedAttempt(doc: SweepDoc, reason: string): Promise<void>;
  /** The round is done: removed, or due again for one more round if more arrived meanwhile. */
  finish(doc: SweepDoc): Promise<void>;
  /** The sweep held in `cycle` starts again in a new cycle; false when no sweep is held in it (any more). */
  release(cycle: string): Promise<boolean>;
}

/** A new cycle: new request ids, and its own rounds. */
const newCycle = (): Partial<SweepDoc> => ({
  status: "due",
  cycle: randomUUID(),
  round: 0,
  again: false,
  amount: null,
  gas: null,
  attempts: 0,
  updatedAt: new Date(),
});

export function createSweepStore(db: Db): SweepStore {
  const sweeps = db.collection<SweepDoc>("sweeps");
  const current = (doc: SweepDoc) => ({
    _id: doc._id,
    status: doc.status,
    round: doc.round,
    cycle: doc.cycle,
  });
  return {
    async ensureIndexes() {
      await sweeps.createIndex({ status: 1 });
    },
    async markDue(target, key) {
      const now = new Date();
      const doc: SweepDoc = {
        _id: `${target.chain}:${key}:${target.mint}`,
        ...target,
        status: "due",
        cycle: randomUUID(),
        round: 0,
        amount: null,
        gas: null,
        attempts: 0,
        reason: null,
        dueAt: now,
        updatedAt: now,
      };
      for (let attempt = 0; attempt < MARK_DUE_ATTEMPTS; attempt++) {
        try {
          await sweeps.insertOne(doc);
          return;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
        // Under way already: what arrived since its balance reading gets a round of its own.
        const res = await sweeps.updateOne(
          { _id: doc._id, status: { $ne: "held" } },
          { $set: { again: true } },
        );
        if (res.matchedCount === 1) return;
        // Held (its release reads a fresh balance), or finished between the insert and the update: then
        // it is inserted anew.
        if (await sweeps.findOne({ _id: doc._id }, { projection: { _id: 1 } })) return;
      }
      throw new Error(`sweep ${doc._id} kept finishing while it was marked due; will retry`);
    },
    pending: (limit) =>
      sweeps
        .find({ status: { $in: ["due", "gas", "tokens"] } })
        .sort({ dueAt: 1 })
        .limit(limit)
        .toArray(),
    held: () => sweeps.find({ status: "held" }).toArray(),
    async advance(doc, set) {
      const res = await sweeps.updateOne(current(doc), {
        $set: { attempts: 0, reason: null, ...set, updatedAt: new Date() },
      });
      return res.modifiedCount === 1;
    },
    async failedAttempt(doc, reason) {
      await sweeps.updateOne(current(doc), {
        $inc: { attempts: 1 },
        $set: { reason, updatedAt: new Date() },
      });
    },
    async finish(doc) {
      const gone = await sweeps.deleteOne({ ...current(doc), again: { $ne: true } });
      if (gone.deletedCount === 1) return;
      await sweeps.updateOne(current(doc), { $set: newCycle() });
    },
    async release(cycle) {
      const held = await sweeps.findOne({ cycle, status: "held" });
      if (!held) return false;
      const res = await sweeps.updateOne(current(held), { $set: { ...newCycle(), reason: null } });
      return res.modifiedCount === 1;
    },
  };
}
