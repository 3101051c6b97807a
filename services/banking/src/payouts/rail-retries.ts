import type { PayoutCommand } from "@ramp/contracts";
import { type BankRail, isTransientRailError, withTimeout } from "../rails/bank-rail.ts";

export interface RetryPolicy {
  /** Asks in all, the first included. */
  attempts: number;
  /** Wait before the second ask; doubled before each further one. */
  baseDelayMs: number;
  /** One ask longer than this counts as a timeout (a failure that may pass). */
  timeoutMs: number;
}

export type RailAnswer = Awaited<ReturnType<BankRail["payout"]>>;

/**
 * The payout's failed asks so far, kept where a restart finds them (banking's database), so the
 * bound holds across crashes: a restarted payout goes on counting from `failed`. An ask cut short by
 * a crash is not counted, as its answer is unknown; asking again is safe (the rail pays once per order).
 */
export interface FailedAsks {
  failed: number;
  lastFailure: string | null;
  /** Stores the count and the failure before the next ask is waited for. */
  record(failed: number, failure: string): Promise<void>;
}

/** Failed asks kept in memory only: a fresh count for every call. */
export const freshCount = (): FailedAsks => ({ failed: 0, lastFailure: null, record: async () => {} });

/**
 * Asks the rail to pay until it answers: a timeout or a 5xx is asked again (the rail pays once per
 * order, however often asked), up to `attempts` failed asks in all, those of earlier runs (`asks`)
 * included; a refusal is an answer and ends it at once. When every ask failed, the payout fails with
 * the last failure as its reason. Anything else (a bug, a malformed command) is thrown and left to
 * the command's redelivery.
 */
export async function payWithRetries(
  rail: BankRail,
  command: PayoutCommand,
  policy: RetryPolicy,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  onRetry: (attempt: number, err: Error) => void = () => {},
  asks: FailedAsks = freshCount(),
): Promise<RailAnswer> {
  let last = asks.lastFailure;
  for (let attempt = asks.failed + 1; attempt <= policy.attempts; attempt++) {
    if (attempt > 1) await sleep(policy.baseDelayMs * 2 ** (attempt - 2));
    try {
      return await withTimeout(policy.timeoutMs, rail.payout(command));
    } catch (err) {
      if (!isTransientRailError(err)) throw err;
      last = (err as Error).message;
      await asks.record(attempt, last);
      onRetry(attempt, err as Error);
    }
  }
  return {
    status: "FAILED",
    reference: `UNPAID-${command.orderId}`,
    reason: `Bank rail unavailable after ${policy.attempts} attempts: ${last ?? "no answer"}`,
  };
}
