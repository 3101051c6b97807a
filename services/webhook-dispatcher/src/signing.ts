import { createHmac } from "node:crypto";

/** spec §6: hex HMAC-SHA256 over `<timestamp>.<raw body>`, keyed with the whole `whsec_…` string. */
export function signatureV1(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${timestamp}.`, "utf8")
    .update(body, "utf8")
    .digest("hex");
}

/**
 * The headers of one attempt. Called per attempt, never cached: every retry carries a fresh
 * timestamp so receivers enforcing the 5-minute window still accept late retries.
 */
export function signedHeaders(
  prefix: string,
  secret: string | null,
  body: string,
  now: Date = new Date(),
): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  // Orders opened without a key have no secret: spec §6 sends them unsigned.
  if (secret === null) return headers;
  const ts = Math.floor(now.getTime() / 1000);
  headers[`${prefix}-Timestamp`] = String(ts);
  headers[`${prefix}-Signature`] = `v1=${signatureV1(secret, ts, body)}`;
  return headers;
}
