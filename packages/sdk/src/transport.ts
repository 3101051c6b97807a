import { setTimeout as sleep } from "node:timers/promises";
import { type Query, queryString, readBody, toError } from "./http-body.ts";
import { RETRYABLE_STATUSES, type RetryOptions, resolveRetry, retryDelayMs } from "./retry.ts";

export interface RampClientOptions {
  apiKey: string;
  /** The service's base address, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A fetch implementation (default: the global one), e.g. to add tracing or a proxy. */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Per try; bank registration talks to a live bank rail, so the default is 30 s. */
  timeoutMs?: number;
}

/** Per-call options of every method. */
export interface CallOptions {
  /**
   * Sent as `Idempotency-Key` on POST and PATCH. Default: a fresh UUID per call, reused by the
   * client's own retries of that call. Pass your own (e.g. your order id) to make a retry after a
   * crash of your process safe as well.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ApiRequest {
  method: "GET" | "POST" | "PATCH";
  path: string;
  query?: Query | undefined;
  body?: unknown;
  /** `/pub/bank` is public; every other route sends `x-api-key`. */
  auth?: boolean;
}

export type Send = <T>(req: ApiRequest, call?: CallOptions) => Promise<T>;

export function createTransport(opts: RampClientOptions): Send {
  const doFetch = opts.fetch ?? globalThis.fetch;
  const base = opts.baseUrl.replace(/\/+$/, "");
  const retry = resolveRetry(opts.retry);
  const timeoutMs = opts.timeoutMs ?? 30_000;

  return async function send<T>(req: ApiRequest, call: CallOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (req.auth !== false) headers["x-api-key"] = opts.apiKey;
    // One key per logical call, fixed before the first try: a retry of a POST whose first try did
    // land is then answered from the server's record instead of running twice.
    if (req.method !== "GET") headers["idempotency-key"] = call.idempotencyKey ?? crypto.randomUUID();
    let body: string | undefined;
    if (req.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(req.body);
    }
    const url = `${base}${req.path}${queryString(req.query)}`;

    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const res = await doFetch(url, {
        method: req.method,
        headers,
        redirect: "error",
        signal: call.signal ? AbortSignal.any([call.signal, timeout]) : timeout,
        ...(body === undefined ? {} : { body }),
      });
      const parsed = await readBody(res);
      if (res.ok) return parsed as T;
      const error = toError(res, parsed);
      const delay = RETRYABLE_STATUSES.has(res.status)
        ? retryDelayMs(retry, attempt, error.retryAfterSeconds)
        : undefined;
      if (delay === undefined) throw error;
      await sleep(delay, undefined, call.signal ? { signal: call.signal } : {});
    }
  };
}
