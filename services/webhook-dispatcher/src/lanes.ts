import { createHash, randomUUID } from "node:crypto";
import { isDuplicateKey } from "@ramp/runtime";
import type { Db } from "mongodb";

/**
 * A lane is one (order or payment, URL) pair, and its lock is the only thing that lets a process
 * touch a delivery of that lane: claim, attempt, reschedule. The lock is an insert on a unique _id
 * because that is atomic on every MongoDB-wire backend, whereas a conditional findOneAndUpdate is
 * not on FerretDB's SQLite backend (measured: 3 of 20 racing updates "won" the same condition).
 * Everything written to a delivery after it is stored is therefore written by the lock holder alone.
 */
interface LockDoc {
  _id: string;
  token: string;
  until: Date;
}
export interface LaneLock {
  laneId: string;
  token: string;
}

export const laneIdOf = (subjectId: string, url: string) =>
  createHash("sha256").update(`${subjectId}\n${url}`).digest("hex").slice(0, 24);

export function createLanes(db: Db) {
  const locks = db.collection<LockDoc>("lane_locks");

  async function tryInsert(laneId: string, token: string, leaseMs: number): Promise<boolean> {
    try {
      await locks.insertOne({ _id: laneId, token, until: new Date(Date.now() + leaseMs) });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  return {
    /** The lane's lock, or null while someone else holds a live lock on it. */
    async acquire(laneId: string, leaseMs: number): Promise<LaneLock | null> {
      const token = randomUUID();
      if (!(await tryInsert(laneId, token, leaseMs))) {
        // A lock outliving its lease belongs to a process that died mid-attempt: take it over.
        const held = await locks.findOne({ _id: laneId });
        if (held && held.until.getTime() > Date.now()) return null;
        if (held) await locks.deleteOne({ _id: laneId, token: held.token });
        if (!(await tryInsert(laneId, token, leaseMs))) return null;
      }
      return { laneId, token };
    },

    async release(lock: LaneLock): Promise<void> {
      await locks.deleteOne({ _id: lock.laneId, token: lock.token });
    },
  };
}
export type Lanes = ReturnType<typeof createLanes>;
