/** How the client retries 429 and 503 answers. */
export interface RetryOptions {
  /** Total tries of one call, the first included (default 3). 1 turns retries off. */
  maxAttempts?: number;
  /** First backoff step when the server gives no `Retry-After` (default 500 ms, doubling per try). */
  baseDelayMs?: number;
  /** Upper bound of one wait; a `Retry-After` asking for longer is not waited for (default 30 s). */
  maxDelayMs?: number;
}

export type ResolvedRetry = Required<RetryOptions>;

export function resolveRetry(opts: RetryOptions = {}): ResolvedRetry {
  return {
    maxAttempts: Math.max(1, Math.floor(opts.maxAttempts ?? 3)),
    baseDelayMs: opts.baseDelayMs ?? 500,
    maxDelayMs: opts.maxDelayMs ?? 30_000,
  };
}

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** `Retry-After` is either delta-seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The wait before try `attempt + 1` (attempt counts from 1), or undefined when the call should stop.
 * The server's `Retry-After` wins; without one, "full jitter" exponential backoff keeps many clients
 * that failed together from coming back together.
 */
export function retryDelayMs(
  retry: ResolvedRetry,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= retry.maxAttempts) return undefined;
  if (retryAfterSeconds !== undefined) {
    const ms = retryAfterSeconds * 1000;
    return ms <= retry.maxDelayMs ? ms : undefined;
  }
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}
