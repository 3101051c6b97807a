import { setTimeout as sleep } from "node:timers/promises";
import { RampApiError } from "./errors.ts";
import {
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type RetryOptions,
  resolveRetry,
  retryDelayMs,
} from "./retry.ts";
import type { ErrorBody } from "./types.ts";

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

export type Query = Record<string, string | number | boolean | undefined>;

export interface ApiRequest {
  method: "GET" | "POST" | "PATCH";
  path: string;
  query?: Query | undefined;
  body?: unknown;
  /** `/pub/bank` is public; every other route sends `x-api-key`. */
  auth?: boolean;
}

export type Send = <T>(req: ApiRequest, call?: CallOptions) => Promise<T>;

export function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const message = v.message;
  return (
    typeof v.statusCode === "number" &&
    typeof v.error === "string" &&
    (typeof message === "string" ||
      (Array.isArray(message) && message.every((m): m is string => typeof m === "string")))
  );
}

export async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A proxy or load balancer in front of the service may answer in its own shape; keep what it said. */
export function toError(res: Response, body: unknown): RampApiError {
  const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
  if (isErrorBody(body)) return new RampApiError(res.status, body, retryAfter);
  const text = typeof body === "string" && body ? body : res.statusText || `HTTP ${res.status}`;
  return new RampApiError(
    res.status,
    { statusCode: res.status, message: text, error: res.statusText || "Error" },
    retryAfter,
  );
}

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
