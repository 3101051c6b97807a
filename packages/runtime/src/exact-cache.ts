/**
 * An in-memory copy of records read from the service's own database, kept exact by being told of every
 * change (see change-feed.ts) rather than by expiring: a record stays until someone reports it changed.
 * `null` is a value too (an unknown API key, a missing rate), so a flood of misses stays off the database.
 * `C` is what a caller hands to the read it causes (a trace), when the value is not in memory.
 */
export interface ExactCache<V extends NonNullable<unknown> | null, I extends string = string, C = undefined> {
  get(id: I, context?: C): Promise<V>;
  /** Forgets one record; the next read goes to the database. */
  drop(id: string): void;
  /** Forgets every record `match` picks (those derived from a record that changed). */
  dropWhere(match: (id: I) => boolean): void;
  /** Forgets everything: a change may have been missed, and nobody knows which. */
  clear(): void;
  /** While not live (no change can reach this replica), every read goes to the database. */
  setLive(live: boolean): void;
}

export function createExactCache<
  V extends NonNullable<unknown> | null,
  I extends string = string,
  C = undefined,
>(load: (id: I, context?: C) => Promise<V>, maxEntries = 10_000): ExactCache<V, I, C> {
  const entries = new Map<I, V>();
  // Concurrent misses of one id share one database read.
  const loading = new Map<I, Promise<V>>();
  let live = true;
  // Bumped by every drop: a read that was in flight when a change arrived may hold the older value, and
  // must not be kept (it is still answered: it was read while the change was happening).
  let epoch = 0;

  const fill = async (id: I, context: C | undefined): Promise<V> => {
    const seen = epoch;
    const value = await load(id, context);
    if (live && seen === epoch) {
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(id, value);
    }
    return value;
  };

  const forgetAll = () => {
    epoch++;
    entries.clear();
    loading.clear();
  };

  return {
    get(id, context) {
      if (!live) return load(id, context);
      const hit = entries.get(id);
      if (hit !== undefined) return Promise.resolve(hit);
      let pending = loading.get(id);
      if (!pending) {
        const started = fill(id, context);
        const settled = () => {
          if (loading.get(id) === started) loading.delete(id);
        };
        started.then(settled, settled);
        loading.set(id, started);
        pending = started;
      }
      return pending;
    },
    drop(id) {
      epoch++;
      entries.delete(id as I);
      loading.delete(id as I);
    },
    dropWhere(match) {
      epoch++;
      for (const id of entries.keys()) if (match(id)) entries.delete(id);
      for (const id of loading.keys()) if (match(id)) loading.delete(id);
    },
    clear: forgetAll,
    setLive(next) {
      live = next;
      forgetAll();
    },
  };
}
