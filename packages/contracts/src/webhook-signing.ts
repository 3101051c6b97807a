import { createHmac } from "node:crypto";

/**
 * The webhook signature, scheme v1: lowercase hex HMAC-SHA256 over `<timestamp>.<raw body>`, keyed with
 * the whole `whsec_…` secret as UTF-8. The dispatcher signs with it and the SDK verifies with it, so the
 * two can never disagree on a byte. `body` may be the raw bytes a receiver captured: they are hashed
 * as they are, with no text round trip that could alter them.
 */
export function signatureV1(secret: string, timestamp: number | string, body: string | Uint8Array): string {
  const mac = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.`, "utf8");
  if (typeof body === "string") mac.update(body, "utf8");
  else mac.update(body);
  return mac.digest("hex");
}

/** The two header names of a signed delivery; the prefix is configurable so operators can brand it. */
export function webhookHeaderNames(prefix: string): { timestamp: string; signature: string } {
  return { timestamp: `${prefix}-Timestamp`, signature: `${prefix}-Signature` };
}

/**
 * The headers of one attempt. Called per attempt, never cached: every retry carries a fresh
 * timestamp so receivers enforcing the 5-minute window still accept late retries.
 */
export function signedHeaders(
  prefix: string,
  secret: string | readonly string[] | null,
  body: string,
  now: Date = new Date(),
): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  // Orders opened without a key have no secret: they are sent unsigned.
  const secrets = secret === null ? [] : typeof secret === "string" ? [secret] : secret;
  if (secrets.length === 0) return headers;
  const ts = Math.floor(now.getTime() / 1000);
  const names = webhookHeaderNames(prefix);
  headers[names.timestamp] = String(ts);
  // During a secret rotation's overlap: the new secret's signature first, then the old one's.
  headers[names.signature] = secrets.map((s) => `v1=${signatureV1(s, ts, body)}`).join(",");
  return headers;
}
