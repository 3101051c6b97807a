import type { ErrorBody } from "./types.ts";

/**
 * A non-2xx answer of the API, in its documented error shape: `statusCode`, the status text in
 * `error`, and `messages` always an array (the API sends one string for most failures and one string
 * per invalid field for validation failures; callers should not have to tell the two apart).
 */
export class RampApiError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly messages: string[];
  /** Seconds the server asked the caller to wait (429/503 with `Retry-After`), when it said so. */
  readonly retryAfterSeconds: number | undefined;

  constructor(statusCode: number, body: ErrorBody, retryAfterSeconds?: number) {
    const messages = Array.isArray(body.message) ? body.message : [body.message];
    super(`${statusCode} ${body.error}: ${messages.join("; ")}`);
    this.name = "RampApiError";
    this.statusCode = statusCode;
    this.error = body.error;
    this.messages = messages;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** 429 and 5xx: the spec calls these transient; anything else will fail the same way again. */
  get retryable(): boolean {
    return this.statusCode === 429 || this.statusCode >= 500;
  }
}

export type WebhookVerificationReason =
  | "missing_header"
  | "malformed_header"
  | "signature_mismatch"
  | "timestamp_out_of_tolerance"
  | "invalid_payload";

/** Why a delivery was rejected; answer it with a 4xx and do not act on the body. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}
