import { timingSafeEqual } from "node:crypto";
import { signatureV1, webhookHeaderNames } from "@ramp/contracts/webhook-signing";
import { WebhookVerificationError } from "./errors.ts";
import type { PaymentDto, TransactionDto } from "./types.ts";

/** A ramp order update is the Transaction exactly as `GET /pub/v2/transaction/{id}` returns it. */
export type WebhookPayload = TransactionDto | PaymentDto;

/** Node's `req.headers`, a fetch `Headers`, or any plain map; names are matched case-insensitively. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The body exactly as received, before any JSON parsing (a re-serialised body will not verify). */
  rawBody: string | Uint8Array;
  headers: WebhookHeaders;
  /** The key's `whsec_…` secret, whole. */
  secret: string;
  /** Largest accepted distance between the signing time and now, either way (default 300). */
  toleranceSeconds?: number;
  /** The operator's `WEBHOOK_HEADER_PREFIX` (default `X-SVC`). */
  headerPrefix?: string;
  /** The clock to judge the timestamp by (default now). */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== wanted || v === undefined) continue;
    return Array.isArray(v) ? v.join(",") : v;
  }
  return undefined;
}

/** `v1=<hex>` entries of the signature header; other schemes may ride alongside during a transition. */
function v1Signatures(value: string): string[] {
  return value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.startsWith("v1="))
    .map((part) => part.slice(3));
}

function isPayload(value: unknown): value is WebhookPayload {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && (typeof v.transactionType === "string" || typeof v.method === "string");
}

/**
 * Checks a delivery's signature and age and returns its payload; throws WebhookVerificationError
 * naming why otherwise. Tell the kinds apart with `"transactionType" in payload` (a ramp order) or
 * `"method" in payload` (a settled payment).
 */
export function verifyWebhook(opts: VerifyWebhookOptions): WebhookPayload {
  const names = webhookHeaderNames(opts.headerPrefix ?? "X-SVC");
  const timestamp = header(opts.headers, names.timestamp);
  const signature = header(opts.headers, names.signature);
  if (timestamp === undefined || signature === undefined) {
    const missing = timestamp === undefined ? names.timestamp : names.signature;
    throw new WebhookVerificationError("missing_header", `missing ${missing} header`);
  }
  if (!/^\d{1,12}$/.test(timestamp.trim())) {
    throw new WebhookVerificationError("malformed_header", `${names.timestamp} is not Unix seconds`);
  }
  const candidates = v1Signatures(signature).filter((s) => /^[0-9a-f]{64}$/.test(s));
  if (candidates.length === 0) {
    throw new WebhookVerificationError("malformed_header", `${names.signature} carries no v1=<hex> value`);
  }

  // Signature before age: an unauthenticated timestamp says nothing, and a genuine but late
  // delivery deserves the more precise answer.
  const ts = Number(timestamp.trim());
  const expected = Buffer.from(signatureV1(opts.secret, ts, opts.rawBody), "utf8");
  const matches = candidates.some((s) => timingSafeEqual(Buffer.from(s, "utf8"), expected));
  if (!matches) {
    throw new WebhookVerificationError("signature_mismatch", "signature does not match the body and secret");
  }

  const tolerance = opts.toleranceSeconds ?? 300;
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - ts) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `timestamp is ${now - ts} s from now, beyond the ${tolerance} s tolerance`,
    );
  }

  const text = typeof opts.rawBody === "string" ? opts.rawBody : Buffer.from(opts.rawBody).toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError("invalid_payload", "body is not JSON");
  }
  if (!isPayload(parsed)) {
    throw new WebhookVerificationError("invalid_payload", "body is neither a transaction nor a payment");
  }
  return parsed;
}
