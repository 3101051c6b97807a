import type { Logger } from "@ramp/runtime";
import { type AttemptContext, attemptDelivery } from "./attempt.ts";
import type { DeliveriesStore, DeliveryDoc } from "./deliveries-store.ts";

export interface SchedulerOptions {
  store: DeliveriesStore;
  attempt: AttemptContext;
  log: Logger;
  /** Seconds before each attempt; its length is the number of attempts. */
  schedule: number[];
  concurrency: number;
  pollMs: number;
  leaseMs: number;
}

/** How long a delivery that must wait for its order's previous one is set aside. */
const WAIT_MS = 150;
/** How long a status waits for a predecessor that may still be on its way through the consumer. */
const ORDER_GRACE_MS = 1_000;

/**
 * Claims due deliveries from the database and sends them with bounded parallelism. The database,
 * not memory, holds every pending delivery: any number of instances can run, and one that dies
 * mid-attempt leaves the delivery to whoever claims it once the lease runs out.
 */
export function startScheduler(o: SchedulerOptions) {
  const inflight = new Set<Promise<void>>();
  let stopped = false;
  let pumping = false;
  let again = false;
  let current: Promise<void> = Promise.resolve();

  async function process(d: DeliveryDoc): Promise<void> {
    const log = o.log.child({ deliveryId: d._id, subjectId: d.subjectId, sequence: d.sequence });
    if (await o.store.newerDelivered(d)) {
      await o.store.finish(d, "superseded", d.attemptsMade, d.nextAttemptAt, "A newer status was delivered");
      log.info("stale status not delivered: a newer one already was");
      return;
    }
    if (await o.store.mustWait(d, ORDER_GRACE_MS)) {
      await o.store.release(d, WAIT_MS + Math.floor(Math.random() * WAIT_MS));
      return;
    }
    const attempt = d.attemptsMade + 1;
    const r = await attemptDelivery(o.attempt, d.apiKeyId, d.url, d.body);
    await o.store.recordAttempt(
      { deliveryId: d._id, apiKeyId: d.apiKeyId, type: d.type, subjectId: d.subjectId, url: d.url, attempt },
      r,
    );
    if (r.delivered) {
      await o.store.finish(d, "delivered", attempt, d.nextAttemptAt, null);
      log.debug({ attempt, statusCode: r.statusCode, durationMs: r.durationMs }, "webhook delivered");
      return;
    }
    const pause = o.schedule[attempt];
    if (pause === undefined) {
      await o.store.finish(d, "failed", attempt, d.nextAttemptAt, r.error);
      log.warn({ attempt, error: r.error }, "webhook delivery failed for good");
      return;
    }
    await o.store.finish(d, "pending", attempt, new Date(Date.now() + pause * 1000), r.error);
    log.info({ attempt, error: r.error, retryInS: pause }, "webhook attempt failed; will retry");
  }

  function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return current;
    }
    pumping = true;
    current = claimLoop();
    return current;
  }

  async function claimLoop(): Promise<void> {
    try {
      do {
        again = false;
        while (!stopped && inflight.size < o.concurrency) {
          const d = await o.store.claim(o.leaseMs);
          if (!d) break;
          const p = process(d)
            .catch((err) =>
              o.log.error({ err, deliveryId: d._id }, "delivery attempt crashed; lease will expire"),
            )
            .finally(() => {
              inflight.delete(p);
              if (!stopped) void pump();
            });
          inflight.add(p);
        }
      } while (again && !stopped);
    } catch (err) {
      o.log.error({ err }, "claiming deliveries failed; retrying on the next tick");
    } finally {
      pumping = false;
    }
  }

  const timer = setInterval(() => void pump(), o.pollMs);
  void pump();

  return {
    /** New work was stored: look now instead of at the next tick. */
    wake(): void {
      if (!stopped) void pump();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      // A claim racing with stop() must still be finished, not abandoned under its lease.
      await current;
      await Promise.allSettled([...inflight]);
    },
  };
}
