import type { AddressPurpose, Chain, ChainFamily } from "@ramp/contracts";
import { insertGrouped, isDuplicateKey, updateGrouped } from "@ramp/runtime";
import type { Db } from "mongodb";

/** One handed-out HD index. Written before the address is returned; never reused. */
export interface AllocationDoc {
  /**
   * `${purpose}:${ref}`, so a repeat of an allocation finds it by `_id`, the one filter FerretDB serves
   * from an index (any other reads the whole collection). Allocations stored before are keyed
   * `${family}:${index}`; the unique {purpose, ref} index still finds them (see `findWinner`).
   */
  _id: string;
  family: ChainFamily;
  index: number;
  chain: Chain;
  purpose: AddressPurpose;
  ref: string;
  /** Normalised token addresses the allocation expects. */
  mints: string[];
  /** The address as derived and returned to the caller. */
  address: string;
  createdAt: Date;
}

/** The watch list: one entry per (chain, address), read by the poll loop and the sandbox deposit path. */
export interface WatchDoc {
  _id: string; // `${chain}:${normalised address}`
  chain: Chain;
  /** Normalised address (EVM checksummed, TON raw): how adapters report the receiver. */
  key: string;
  address: string;
  mints: string[];
  purpose: AddressPurpose;
  ref: string;
  allocationId: string;
  /** `${chain}:${minute}` of its last change: how pollers find what changed since they last read. */
  changed?: string;
  /** Its order settled: a deposit arriving later is consolidated too. */
  settled?: boolean;
}

interface CounterDoc {
  _id: string;
  next: number;
}

/** HD allocations and the watch list derived from them. */
export interface AllocationStore {
  ensureIndexes(): Promise<void>;
  /** Reserves the family's next HD index; a reserved index is never handed out again, used or not. */
  reserveIndex(family: ChainFamily): Promise<number>;
  /**
   * Forgets the rest of this process's reserved block: an index from it was taken by someone else, so
   * the counter did not hand the block to this process alone (see `reserveIndex`).
   */
  dropReserved(family: ChainFamily): void;
  /**
   * After an insert failed on a duplicate key: the allocation that holds the ref, if that is what
   * collided. Also finds allocations stored under their older ids, by the {purpose, ref} index.
   */
  findWinner(purpose: AddressPurpose, ref: string): Promise<AllocationDoc | null>;
  /** False when the ref or the index was taken meanwhile (a unique key already held). */
  insert(doc: AllocationDoc): Promise<boolean>;
  addMints(id: string, mints: string[]): Promise<void>;
  /** Idempotent: re-run after a crash between allocation and watch registration repairs the list. */
  watch(a: AllocationDoc, key: string): Promise<void>;
  /**
   * The entry of an allocation this process has just inserted: its address comes from an index never
   * handed out before, so no entry holds it yet, and it is inserted rather than upserted. One that is
   * there all the same is updated as `watch` updates it.
   */
  watchNew(a: AllocationDoc, key: string): Promise<void>;
  /**
   * The chain's watch list. Read whole at this process's first call per chain; after that only what
   * changed in the minutes since the previous call (see `WatchDoc.changed`), so a poll's reads follow
   * the addresses added, not every address ever handed out.
   */
  watchedOn(chain: Chain): Promise<WatchDoc[]>;
  findWatch(chain: Chain, key: string): Promise<WatchDoc | null>;
  get(id: string): Promise<AllocationDoc | null>;
  markSettled(chain: Chain, key: string): Promise<void>;
}

export const allocationId = (purpose: AddressPurpose, ref: string) => `${purpose}:${ref}`;

/**
 * HD indexes a process takes from its family's counter in one write. A crash burns at most this many
 * unused indexes, which is harmless: every handed-out index is stored with its allocation, nothing
 * scans indexes in sequence, and a burnt index is never issued again.
 */
export const HD_INDEX_BLOCK = 64;

const MINUTE_MS = 60_000;
/** How far before its previous read a poller looks again: covers clock skew between replicas. */
const CHANGE_OVERLAP_MS = 2 * MINUTE_MS;
const CATCH_UP_MINUTES = 30;
const changedKey = (chain: Chain, ms: number) => `${chain}:${Math.floor(ms / MINUTE_MS)}`;

/** The watch-list entry of an allocation, as a first `watch` of it stores it. */
function watchEntry(a: AllocationDoc, key: string): WatchDoc & { changed: string } {
  return {
    _id: `${a.chain}:${key}`,
    chain: a.chain,
    key,
    address: a.address,
    mints: [...new Set(a.mints)],
    purpose: a.purpose,
    ref: a.ref,
    allocationId: a._id,
    changed: changedKey(a.chain, Date.now()),
  };
}

export function createAllocationStore(db: Db): AllocationStore {
  const allocations = db.collection<AllocationDoc>("allocations");
  const watches = db.collection<WatchDoc>("watch_list");
  const counters = db.collection<CounterDoc>("hd_counters");
  /** This process's reserved, not yet handed out indexes per family: `[next, end)`. */
  const blocks = new Map<ChainFamily, { next: number; end: number }>();
  /** One counter write per family in flight: every caller waiting for a block shares it. */
  const refills = new Map<ChainFamily, Promise<void>>();
  /** Each chain's watch list as this process last read it, and when it started that read. */
  const watched = new Map<Chain, { byId: Map<string, WatchDoc>; readAt: number }>();

  async function watch(a: AllocationDoc, key: string): Promise<void> {
    const { _id, mints, changed, ...fixed } = watchEntry(a, key);
    await updateGrouped(watches, {
      filter: { _id },
      update: { $setOnInsert: fixed, $addToSet: { mints: { $each: mints } }, $set: { changed } },
      upsert: true,
    });
  }

  async function reserveBlock(family: ChainFamily): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await counters.findOneAndUpdate(
          { _id: family },
          { $inc: { next: HD_INDEX_BLOCK } },
          { upsert: true, returnDocument: "after" },
        );
        if (!doc) throw new Error(`HD counter for ${family} did not return`);
        blocks.set(family, { next: doc.next - HD_INDEX_BLOCK, end: doc.next });
        return;
      } catch (err) {
        // Two first-ever upserts race to create the counter; the loser simply increments it.
        if (!isDuplicateKey(err) || attempt >= 3) throw err;
      }
    }
  }

  return {
    async ensureIndexes(): Promise<void> {
      await allocations.createIndex({ purpose: 1, ref: 1 }, { unique: true });
      await allocations.createIndex({ family: 1, index: 1 }, { unique: true });
      await watches.createIndex({ chain: 1 });
      await watches.createIndex({ changed: 1 });
    },
    async reserveIndex(family) {
      for (;;) {
        const block = blocks.get(family);
        if (block && block.next < block.end) return block.next++;
        let refill = refills.get(family);
        if (!refill) {
          refill = reserveBlock(family).finally(() => refills.delete(family));
          refills.set(family, refill);
        }
        await refill;
      }
    },
    dropReserved(family) {
      blocks.delete(family);
    },
    async findWinner(purpose, ref) {
      return (
        (await allocations.findOne({ _id: allocationId(purpose, ref) })) ??
        (await allocations.findOne({ purpose, ref }))
      );
    },
    // Under load, with the allocations and watches of other orders ready at the same moment, in one command.
    insert: (doc) => insertGrouped(allocations, doc),
    async addMints(id, mints) {
      await allocations.updateOne({ _id: id }, { $addToSet: { mints: { $each: mints } } });
    },
    watch,
    async watchNew(a, key) {
      // With the other new entries ready at the same moment, in one insert: FerretDB writes those as one
      // statement in one transaction, where each upsert of a group costs it a read and a transaction of
      // its own.
      if (!(await insertGrouped(watches, watchEntry(a, key)))) await watch(a, key);
    },
    async watchedOn(chain) {
      const readAt = Date.now();
      const known = watched.get(chain);
      const first = known && Math.floor((known.readAt - CHANGE_OVERLAP_MS) / MINUTE_MS);
      const last = Math.floor(readAt / MINUTE_MS);
      // The whole list at the first read, or after a pause too long to catch up on minute by minute.
      if (!known || first === undefined || last - first > CATCH_UP_MINUTES) {
        const all = await watches.find({ chain }).toArray();
        watched.set(chain, { byId: new Map(all.map((w) => [w._id, w])), readAt });
        return all;
      }
      // Every minute since the previous read began (less the overlap): one equality each.
      const minutes = Array.from({ length: last - first + 1 }, (_, i) => `${chain}:${first + i}`);
      const changed = await Promise.all(minutes.map((changed) => watches.find({ changed }).toArray()));
      for (const w of changed.flat()) known.byId.set(w._id, w);
      known.readAt = readAt;
      return [...known.byId.values()];
    },
    findWatch: (chain, key) => watches.findOne({ _id: `${chain}:${key}` }),
    get: (id) => allocations.findOne({ _id: id }),
    async markSettled(chain, key) {
      // A change like any other, so pollers reading only what changed see it.
      await watches.updateOne(
        { _id: `${chain}:${key}` },
        { $set: { settled: true, changed: changedKey(chain, Date.now()) } },
      );
    },
  };
}
