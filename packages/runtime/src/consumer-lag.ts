/**
 * How far behind a JetStream consumer is: the age (now minus the time the stream stored it) of the newest
 * message it started to handle, and 0 once it has handled everything it was given. Messages queue in the
 * stream when a consumer takes them slower than they arrive, so a consumer keeping up starts each one a
 * few milliseconds after it was stored, and one falling behind starts each later than the one before.
 * It is what a caller admitting new work reads (`sandboxDeposit` in orders refuses a deposit while its
 * deposits wait), and the `ramp_consumer_lag_seconds` gauge an operator alerts on.
 *
 * Only first deliveries count (the caller's concern): a message retried after a pause was stored long
 * before on purpose.
 */
export interface ConsumerLag {
  /** A message whose handling starts now, stored at `storedMs` (the server's clock, epoch ms). */
  started(storedMs: number, nowMs?: number): void;
  /** Every message given has been handled: nothing waits. */
  caughtUp(): void;
  /** Milliseconds behind: 0 when keeping up or idle. */
  ms(): number;
}

export function consumerLag(): ConsumerLag {
  let lagMs = 0;
  return {
    started(storedMs, nowMs = Date.now()) {
      // The two clocks (the server's and ours) may differ by a little: never below zero.
      lagMs = Math.max(0, nowMs - storedMs);
    },
    caughtUp() {
      lagMs = 0;
    },
    ms: () => lagMs,
  };
}
