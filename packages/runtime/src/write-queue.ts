/**
 * Runs the writes of one process to one document one after another.
 *
 * FerretDB applies an update by reading the document and writing all of it back, so two updates of the
 * same document that overlap can lose one of them (measured: a state change overwritten by the removal
 * of the previous change's outbox entry, the order left a state behind). Within a process, every write
 * a store makes to a document — insert and flush, transition, sweep — goes through this queue.
 * Across processes, see `waitForOutbox` in state-store.ts.
 */
export type WriteQueue = <T>(key: string, write: () => Promise<T>) => Promise<T>;

export function createWriteQueue(): WriteQueue {
  const tails = new Map<string, Promise<unknown>>();
  return (key, write) => {
    const before = tails.get(key) ?? Promise.resolve();
    const run = before.then(write, write);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    // The last write of a key removes it, so the map holds only documents being written.
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
