import { sha256Hex } from "@ramp/runtime";
import canonicalize from "canonicalize";

/**
 * The body as a request's identity sees it: RFC 8785 canonical JSON (keys sorted, numbers and strings
 * in one spelling), so `{"a":1,"b":2}` and `{ "b": 2.0, "a": 1 }` are the same request. An empty body
 * is `{}` (where every field is optional the two mean the same); a body that is not JSON is compared
 * as sent.
 */
export function canonicalBody(text: string): string {
  if (text.trim() === "") return "{}";
  try {
    return canonicalize(JSON.parse(text)) ?? text;
  } catch {
    return text;
  }
}

/** What makes two requests "the same": method, path with its query, canonical body. */
export const requestFingerprint = (method: string, pathAndQuery: string, bodyText: string): string =>
  sha256Hex(`${method.toUpperCase()}\n${pathAndQuery}\n${canonicalBody(bodyText)}`);

/**
 * The key handed to the services that own an effect (orders, and through it the rail and the watcher).
 * Bound to the request, not only to the client's key: a key reused for a different request after its
 * record expired must create something new, never be answered with the old order.
 */
export const downstreamKey = (key: string, fingerprint: string): string =>
  sha256Hex(`${key}\n${fingerprint}`);
