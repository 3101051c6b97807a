import { createHash, randomUUID } from "node:crypto";
import type { Claims } from "@ramp/runtime";

/**
 * A lane is one (order or payment, URL) pair, and its lock is the only thing that lets a process
 * touch a delivery of that lane: claim, attempt, reschedule. The lock is a leased claim (an insert on a
 * unique key, atomic on every MongoDB-wire backend, unlike FerretDB's conditional updates), so
 * everything written to a delivery after it is stored is written by the lock holder alone.
 */
export interface LaneLock {
  laneId: string;
  token: string;
}

export const laneIdOf = (subjectId: string, url: string) =>
  createHash("sha256").update(`${subjectId}\n${url}`).digest("hex").slice(0, 24);

export interface Lanes {
  /** The lane's lock, or null while someone else holds a live lock on it; a lapsed lock is taken over. */
  acquire(laneId: string, leaseMs: number): Promise<LaneLock | null>;
  release(lock: LaneLock): Promise<void>;
}

export function createLanes(claims: Claims): Lanes {
  const key = (laneId: string) => `lane:${laneId}`;
  return {
    async acquire(laneId, leaseMs) {
      const token = randomUUID();
      return (await claims.claim(key(laneId), token, leaseMs)) ? { laneId, token } : null;
    },
    async release(lock) {
      await claims.release(key(lock.laneId), lock.token);
    },
  };
}
