// What the public client and the console client share about reading HTTP answers; no Node built-ins,
// so the console's browser bundle can use it.
import { RampApiError } from "./errors.ts";
import { parseRetryAfter } from "./retry.ts";
import type { ErrorBody } from "./types.ts";

export type Query = Record<string, string | number | boolean | undefined>;

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
