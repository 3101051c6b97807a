import { z } from "zod";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** Optional on every POST and PATCH: 1 to 255 visible ASCII characters (no spaces or controls). */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters`)
  .meta({
    description:
      "Makes a retry safe. The first request with a key runs; for a day (the operator's " +
      "`IDEMPOTENCY_TTL_SECONDS`) a repeat with the same " +
      "method, path and body (compared as canonical JSON) gets the same status and body back with " +
      "`Idempotent-Replayed: true` and changes nothing. 5xx, 409 and 429 answers are not kept: the " +
      "repeat runs again and still does nothing twice. Scoped to the business.",
  });

/** The 4xx an Idempotency-Key can answer with, beyond the route's own. */
export const idempotencyErrors = {
  409: "A request with this Idempotency-Key is in progress",
  422: "Idempotency-Key reused with a different request",
} as const;
