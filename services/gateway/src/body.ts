import { AppError, parseJsonText } from "@ramp/contracts";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** Every request body the API takes is a small JSON object; anything larger is refused unread. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** A Content-Length as one plain number. */
const DECIMAL = /^\d{1,15}$/;

/**
 * 413 for a body over the limit: from Content-Length before a byte is read, and for a streamed
 * (chunked) body as soon as the running count passes the limit, so an oversized body is never held
 * in memory whole.
 */
export function bodyLimits(): MiddlewareHandler {
  const tooLarge = () => {
    throw new AppError("PAYLOAD_TOO_LARGE", "Request body too large");
  };
  const streamed = bodyLimit({ maxSize: BODY_LIMIT_BYTES, onError: tooLarge });
  return (c, next) => {
    // A GET or HEAD has no body to bound (the server hands none on).
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    // A declared length decides from the header alone. Hono's middleware asks for the body stream
    // first, which makes the Node server build a whole fetch Request (a web stream, an abort signal)
    // for a body that is then read straight from the socket anyway: about a tenth of the gateway's CPU
    // on `POST /pub/v2/offramp`. Node's parser reads exactly that many bytes; anything but one plain
    // number (which that parser refuses anyway) is left to be counted as it streams.
    const length = c.req.header("content-length");
    if (length !== undefined && DECIMAL.test(length) && c.req.header("transfer-encoding") === undefined)
      return Number(length) > BODY_LIMIT_BYTES ? tooLarge() : next();
    return streamed(c, next);
  };
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
