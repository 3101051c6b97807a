import type { Logger } from "@ramp/runtime";
import { type AttemptContext, attemptDelivery } from "./attempt.ts";
import type { DeliveriesStore, DeliveryDoc } from "./deliveries-store.ts";
import type { Lanes } from "./lanes.ts";

export interface SchedulerOptions {
  store: DeliveriesStore;
  lanes: Lanes;
  attempt: AttemptContext;
  log: Logger;
  /** Seconds before each attempt; its length is the number of attempts. */
  schedule: number[];
  concurrency: number;
  pollMs: number;
  leaseMs: number;
}

/** How long a delivery that must wait for its lane is set aside. */
const WAIT_MS = 150;
/** How long a status waits for a predecessor that may still be on its way through the consumer. */
const ORDER_GRACE_MS = 1_000;

/** Retries a write a few times: SQLite-backed FerretDB answers SQLITE_BUSY under write bursts. */
async function persist(write: () => Promise<void>): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await write();
    } catch (err) {
      if (i >= 4) throw err;
      await new Promise((r) => setTimeout(r, 50 * 2 ** i));
    }
  }
}

/**
 * Sends deliveries with bounded parallelism. The database, not memory, holds every pending
 * delivery: any number of instances can run, and one that dies mid-attempt leaves the delivery
 * due, with its lane locked until the lease runs out; then whoever finds it sends it. New deliveries are tried at once
 * (`run`); the poll picks up retries, overflow and work orphaned by a crash.
 */
export function startScheduler(o: SchedulerOptions) {
  const inflight = new Map<string, Promise<void>>();
  let stopped = false;
  let polling: Promise<void> | null = null;

  /**
   * What keeps a receiver's view of an order moving forward (DESIGN §8): never send a status once a
   * newer one was delivered to the same URL, and let an older one have its first try before it.
   */
  async function ordering(d: DeliveryDoc): Promise<"send" | "superseded" | "wait"> {
    if (d.type !== "RAMP") return "send";
    const others = await o.store.neighbours(d);
    if (others.some((x) => x.sequence > d.sequence && x.status === "delivered")) return "superseded";
    const older = others.filter((x) => x.sequence < d.sequence);
    if (older.some((x) => x.status === "pending" && x.attemptsMade === 0)) return "wait";
    // Statuses published back to back can be stored out of order by the parallel consumer.
    const young = Date.now() - d.createdAt.getTime() < ORDER_GRACE_MS;
    return d.sequence > 0 && older.length === 0 && young ? "wait" : "send";
  }

  async function attempt(d: DeliveryDoc, log: Logger): Promise<void> {
    const verdict = await ordering(d);
    if (verdict === "superseded") {
      await o.store.update(d, { status: "superseded", lastError: "A newer status was delivered" });
      log.info("stale status not delivered: a newer one already was");
      return;
    }
    if (verdict === "wait") {
      await o.store.update(d, { nextAttemptAt: new Date(Date.now() + WAIT_MS) });
      return;
    }
    const n = d.attemptsMade + 1;
    const r = await attemptDelivery(o.attempt, d.apiKeyId, d.url, d.body);
    // Sent: from here a lost write means a duplicate send, so ride out a briefly busy database.
    await persist(() =>
      o.store.recordAttempt(
        {
          deliveryId: d._id,
          apiKeyId: d.apiKeyId,
          type: d.type,
          subjectId: d.subjectId,
          url: d.url,
          attempt: n,
        },
        r,
      ),
    );
    const pause = o.schedule[n];
    if (r.delivered) {
      await persist(() => o.store.update(d, { status: "delivered", attemptsMade: n, lastError: null }));
    } else if (pause === undefined) {
      await persist(() => o.store.update(d, { status: "failed", attemptsMade: n, lastError: r.error }));
      log.warn({ attempt: n, error: r.error }, "webhook delivery failed for good");
    } else {
      const nextAttemptAt = new Date(Date.now() + pause * 1000);
      await persist(() => o.store.update(d, { attemptsMade: n, nextAttemptAt, lastError: r.error }));
      log.info({ attempt: n, error: r.error, retryInS: pause }, "webhook attempt failed; will retry");
    }
  }

  async function process(candidate: DeliveryDoc): Promise<void> {
    const lock = await o.lanes.acquire(candidate.laneId, o.leaseMs);
    if (!lock) return; // Another attempt on this lane is running; the poll comes back to it.
    try {
      const d = await o.store.reload(candidate._id);
      if (!d) return;
      await attempt(d, o.log.child({ deliveryId: d._id, subjectId: d.subjectId, sequence: d.sequence }));
    } finally {
      // If even this fails the lock simply expires with its lease.
      await persist(() => o.lanes.release(lock));
    }
  }

  function run(d: DeliveryDoc): void {
    if (inflight.has(d._id)) return;
    const p = process(d)
      .catch((err) => o.log.error({ err, deliveryId: d._id }, "delivery attempt crashed; lease will expire"))
      .finally(() => inflight.delete(d._id));
    inflight.set(d._id, p);
  }

  async function pollOnce(): Promise<void> {
    try {
      while (!stopped) {
        const room = o.concurrency - inflight.size;
        if (room <= 0) return;
        // Over-fetch: some candidates sit behind a busy lane and are skipped this round.
        const due = await o.store.findDue(room * 2 + 16, new Set(inflight.keys()));
        const before = inflight.size;
        for (const d of due.slice(0, room)) run(d);
        if (due.length < room || inflight.size === before) return;
        await Promise.race(inflight.values());
      }
    } catch (err) {
      o.log.error({ err }, "claiming deliveries failed; retrying on the next tick");
    }
  }

  const tick = () => {
    if (stopped || polling) return;
    polling = pollOnce().finally(() => {
      polling = null;
    });
  };
  const timer = setInterval(tick, o.pollMs);
  tick();

  return {
    /** Whether a delivery stored now should be born leased to this instance and sent at once. */
    hasRoom: () => !stopped && inflight.size < o.concurrency,
    run,
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      // A claim racing with stop() must still be finished, not abandoned under its lease.
      await polling;
      await Promise.allSettled([...inflight.values()]);
    },
  };
}
export type Scheduler = ReturnType<typeof startScheduler>;
