import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import type { LeaseBucketContract } from "@ramp/contracts";
import { kvLocks, openLockBucket } from "./hold-locks.ts";
import type { Logger } from "./logger.ts";
import type { Stoppable } from "./service.ts";

export interface LeaseOptions {
  contract: LeaseBucketContract;
  /** What is leased, e.g. `poll.BASE`; KV key characters only. */
  key: string;
  /** How long a lease outlives its last renewal; renewed every third of it. */
  ttlMs: number;
  /** Replicas of the bucket's stream (NATS_STREAM_REPLICAS). */
  replicas: number;
  log: Logger;
}

/**
 * Runs `start` only while this process holds the lease on `key`, in a NATS KV bucket whose entries
 * expire after `ttlMs`. Taking it is a `create` (fails while anyone holds it); keeping it is an `update`
 * against the revision we wrote (fails once it expired and someone else took it). A holder that misses
 * its renewals — it died, or paused longer than the TTL — stops its task before trying anything else, so
 * two replicas never run the task at once for longer than one renewal period; another replica takes
 * over within about the TTL.
 */
export async function runWithLease(
  nc: NatsConnection,
  opts: LeaseOptions,
  start: () => Stoppable | Promise<Stoppable>,
): Promise<Stoppable> {
  const bucket = await openLockBucket(nc, opts.contract, { ...opts, leaseMs: opts.ttlMs });
  // The key as given (it is KV-safe): every replica, of any version, names the lease alike.
  const locks = kvLocks(bucket, opts.ttlMs, (key) => key);
  const owner = randomUUID();
  const log = opts.log.child({ lease: opts.key });
  const everyMs = Math.max(100, Math.floor(opts.ttlMs / 3));
  let renewedAt = 0;
  let task: Stoppable | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const letGo = async (why: string) => {
    if (!task) return;
    log.warn({ why }, "lease lost; task stopped");
    const t = task;
    task = null;
    await t.stop();
    // Forget it here too; the entry, if still ours, goes at once rather than after the TTL.
    await locks.release(opts.key, owner);
  };

  const step = async () => {
    if (task && Date.now() - renewedAt > opts.ttlMs * 0.8) await letGo("renewal overdue (paused?)");
    if (task) {
      const kept = await locks.renew(opts.key, owner).catch((err: unknown) => {
        log.warn({ err }, "lease renewal failed");
        return false;
      });
      if (kept) renewedAt = Date.now();
      else await letGo("renewal refused");
      return;
    }
    if (!(await locks.take(opts.key, owner))) return; // Someone holds it.
    renewedAt = Date.now();
    log.info("lease taken; task started");
    task = await start();
  };

  let running: Promise<void> = Promise.resolve();
  const loop = () => {
    running = step()
      .catch((err: unknown) => log.warn({ err }, "lease step failed"))
      .then(() => {
        if (!stopped) timer = setTimeout(loop, everyMs);
      });
  };
  loop();
  await running;

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      if (!task) return;
      await task.stop();
      task = null;
      // Hand over at once rather than after the TTL; only our own revision is deleted.
      await locks.release(opts.key, owner);
    },
  };
}
