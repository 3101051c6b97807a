import { stringifyJson } from "@ramp/contracts";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** A JSON reply whose numbers are plain decimals, never exponent notation (`c.json` would write 5e-7). */
export const reply = (c: Context, value: unknown, status: ContentfulStatusCode = 200) =>
  c.body(stringifyJson(value), status, { "content-type": "application/json" });
