import { stringifyJson } from "@ramp/contracts";
import { isDeeplyFrozen } from "@ramp/runtime";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The text of answers that cannot change (deeply frozen: a kept rate), written once however often they
 * are sent: stringifying exactly was the largest share of the gateway's own work per cached rate read.
 */
const written = new WeakMap<object, string>();
const textOf = (value: unknown): string => {
  if (!isDeeplyFrozen(value)) return stringifyJson(value);
  let text = written.get(value);
  if (text === undefined) {
    text = stringifyJson(value);
    written.set(value, text);
  }
  return text;
};

/** A JSON reply whose numbers are plain decimals, never exponent notation (`c.json` would write 5e-7). */
export const reply = (c: Context, value: unknown, status: ContentfulStatusCode = 200) =>
  c.body(textOf(value), status, { "content-type": "application/json" });
