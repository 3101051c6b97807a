import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { WebhookWork } from "@ramp/contracts";
import { compareAndSet, sha256Hex } from "@ramp/runtime";

/**
 * A lane is one (order or payment, URL) pair. Its state, one NATS KV entry, is what keeps a receiver's
 * view of an order moving forward across every replica:
 * - `delivered`: the highest status sequence that reached the URL. A status at or below it is never
 *   sent again (a newer one already arrived, or this one did and its acknowledgement was lost).
 * - `holder`/`until`: a lease. Only the holder sends on the lane, so two replicas can never have an
 *   older and a newer status in flight to the same URL at once (the older could land last). A holder
 *   that dies simply lets its lease run out.
 * - `attempts`: attempts made per sequence still pending, which numbers the next attempt and ends the
 *   retry schedule; JetStream's own delivery count also counts redeliveries that were not attempts.
 * Every change is a compare-and-set on the entry's revision (runtime's `compareAndSet`, which its KV
 * lock is built on too), so of two replicas racing for a lane exactly one wins; the other tries again a
 * moment later. The lane's lease lives inside its state rather than in a separate lock: taking it and
 * recording `delivered` must be one atomic write, which two KV entries could not give.
 */
export interface LaneState {
  delivered: number;
  holder: string | null;
  until: number;
  attempts: Record<string, number>;
}

export interface LaneView {
  state: LaneState;
  /** 0 while the lane has no entry. */
  revision: number;
}

/** A lease this process holds on a lane. */
export interface LaneHold {
  laneId: string;
  revision: number;
  state: LaneState;
}

export interface Lanes {
  look(laneId: string): Promise<LaneView>;
  /**
   * The lane as this process last read or wrote it, if it remembers it: a starting point for a
   * compare-and-set that spares a read. Possibly stale (another replica may have written since), which
   * the compare-and-set finds out.
   */
  remembered(laneId: string): LaneView | undefined;
  /** Takes the lease if the lane is still at `seen.revision`; null when another writer got there first. */
  take(laneId: string, seen: LaneView, holder: string, leaseMs: number): Promise<LaneHold | null>;
  /** Writes the lane's next state and gives up the lease. */
  settle(hold: LaneHold, next: (s: LaneState) => Omit<LaneState, "holder" | "until">): Promise<void>;
}

export const laneIdOf = (subjectId: string, url: string) => sha256Hex(`${subjectId}\n${url}`).slice(0, 24);

const EMPTY: LaneState = { delivered: -1, holder: null, until: 0, attempts: {} };

/** A lane untouched this long is forgotten; far beyond the longest retry schedule. */
const LANE_TTL_MS = 30 * 24 * 3600 * 1000;
/** Lanes a process remembers (an order's next status usually follows within minutes); past it, all are forgotten. */
const REMEMBERED_LANES = 10_000;

export async function openLanes(nc: NatsConnection, replicas = 1): Promise<Lanes> {
  const kv: KV = await new Kvm(nc).create(WebhookWork.lanesBucket, {
    history: 1,
    ttl: LANE_TTL_MS,
    replicas,
  });
  const encode = (s: LaneState) => JSON.stringify(s);
  const memory = new Map<string, LaneView>();
  const remember = (laneId: string, view: LaneView) => {
    if (memory.size >= REMEMBERED_LANES) memory.clear();
    memory.set(laneId, view);
  };

  async function look(laneId: string): Promise<LaneView> {
    const entry = await kv.get(laneId);
    const view =
      entry?.operation !== "PUT"
        ? { state: EMPTY, revision: 0 }
        : { state: { ...EMPTY, ...entry.json<LaneState>() }, revision: entry.revision };
    remember(laneId, view);
    return view;
  }

  const write = async (laneId: string, state: LaneState, revision: number) => {
    const written = await compareAndSet(kv, laneId, encode(state), revision);
    if (written === null) memory.delete(laneId);
    else remember(laneId, { state, revision: written });
    return written;
  };

  return {
    look,
    remembered: (laneId) => memory.get(laneId),
    async take(laneId, seen, holder, leaseMs) {
      const state = { ...seen.state, holder, until: Date.now() + leaseMs };
      const revision = await write(laneId, state, seen.revision);
      return revision === null ? null : { laneId, revision, state };
    },
    async settle(hold, next) {
      let view: LaneView = { state: hold.state, revision: hold.revision };
      for (let i = 0; i < 5; i++) {
        const written = await write(
          hold.laneId,
          { ...next(view.state), holder: null, until: 0 },
          view.revision,
        );
        if (written !== null) return;
        // Our lease lapsed and someone else wrote in between: apply the change to what they left
        // (`delivered` only ever grows, so nothing they recorded is undone).
        view = await look(hold.laneId);
      }
      throw new Error(`lane ${hold.laneId} could not be settled`);
    },
  };
}
