import type { Logger } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import type { AttemptDoc, DeliveriesStore } from "./deliveries-store.ts";
import type { SendResult } from "./sender.ts";

export type AttemptRecord = Pick<
  AttemptDoc,
  "deliveryId" | "apiKeyId" | "type" | "subjectId" | "url" | "attempt" | "body"
>;

/**
 * The delivery log's writer. Attempts are buffered and written with one insertMany per batch, so the
 * database sees far less than one write per delivery: a delivery's progress lives in JetStream and the
 * lane state, and the log is a record for people, not something the dispatcher reads to decide. The
 * price: a process killed hard loses the attempts of its last flush interval from the log (never a
 * delivery). Whoever reads the log flushes first, so a replica always shows its own attempts.
 */
export interface AttemptLog {
  record(a: AttemptRecord, r: SendResult): void;
  /** Writes everything recorded so far; resolves once it is in the database. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export interface AttemptLogOptions {
  store: DeliveriesStore;
  log: Logger;
  /** A batch is written once it holds this many attempts… */
  maxBatch?: number;
  /** …or this long after its first attempt, whichever comes first. */
  intervalMs?: number;
}

/** Bounds what a database outage can pile up in memory; past it the oldest entries are dropped, loudly. */
const MAX_BUFFERED = 50_000;
const RETRY_MS = 1_000;

export function createAttemptLog(o: AttemptLogOptions): AttemptLog {
  const maxBatch = o.maxBatch ?? 500;
  const intervalMs = o.intervalMs ?? 100;
  let buffer: AttemptDoc[] = [];
  let timer: NodeJS.Timeout | null = null;
  // Writes run one at a time, in order: a later flush() waits for every earlier batch.
  let chain: Promise<void> = Promise.resolve();

  async function write(batch: AttemptDoc[]): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        return await o.store.insertAttempts(batch);
      } catch (err) {
        // SQLite-backed FerretDB answers SQLITE_BUSY under write bursts; ride that out, then give back.
        if (i < 4) {
          await new Promise((r) => setTimeout(r, 50 * 2 ** i));
          continue;
        }
        o.log.error({ err, attempts: batch.length }, "delivery log write failed; kept for the next flush");
        buffer = [...batch, ...buffer];
        const excess = buffer.length - MAX_BUFFERED;
        if (excess > 0) {
          buffer.splice(0, excess);
          o.log.error({ dropped: excess }, "delivery log buffer full; oldest attempts not logged");
        }
        throw err;
      }
    }
  }

  function flush(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    const run = chain.then(async () => {
      while (buffer.length > 0) {
        const batch = buffer.splice(0, maxBatch);
        await write(batch);
      }
    });
    chain = run.catch(() => undefined);
    return run;
  }

  const flushQuietly = () => {
    flush().catch(() => {
      // The batch went back into the buffer: try again later rather than on the next attempt only.
      timer ??= setTimeout(flushQuietly, RETRY_MS);
    });
  };

  return {
    record(a, r) {
      buffer.push({
        _id: new ObjectId(),
        ...a,
        delivered: r.delivered,
        statusCode: r.statusCode,
        durationMs: r.durationMs,
        error: r.error,
        response: r.response,
        createdAt: new Date(),
      });
      if (buffer.length >= maxBatch) flushQuietly();
      else timer ??= setTimeout(flushQuietly, intervalMs);
    },
    flush,
    async stop() {
      await flush().catch((err) => o.log.error({ err }, "delivery log not flushed on stop"));
    },
  };
}
