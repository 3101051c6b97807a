import { AppError, parseJsonText } from "@ramp/contracts";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** Every request body the API takes is a small JSON object; anything larger is refused unread. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * 413 for a body over the limit: from Content-Length before a byte is read, and for a streamed
 * (chunked) body as soon as the running count passes the limit, so an oversized body is never held
 * in memory whole.
 */
export function bodyLimits(): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    onError: () => {
      throw new AppError("PAYLOAD_TOO_LARGE", "Request body too large");
    },
  });
  // A GET or HEAD has no body to bound (the server hands none on), and asking for it would build a whole
  // fetch Request per read: most of what the middleware cost on `GET /pub/v2/rate`.
  return (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limit(c, next));
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * The body of a route that takes JSON. Empty means `{}` (so routes whose fields are all optional
 * accept no body at all); anything else must be declared as JSON, and is parsed keeping each
 * number's source text for the decimal policy.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!JSON_MEDIA_TYPE.test(mediaType))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json");
  try {
    return parseJsonText(text);
  } catch {
    throw new AppError("BAD_REQUEST", "Malformed JSON in request body");
  }
}
