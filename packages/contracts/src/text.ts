import { z } from "zod";

/**
 * The most characters each kind of string the API takes may have. A string field is checked against
 * its cap before anything parses it (an address, a URL, a date): a 60 KB "address" costs the length
 * check, never a base58 decoder's quadratic time.
 */
export const TEXT_MAX = {
  /** Free text a business or its users write: names, descriptions, references, external ids. */
  freeText: 200,
  /** Bank codes and country codes. */
  code: 32,
  /** Account numbers, and ids the API issued (quotes, deliveries, API keys). */
  identifier: 64,
  /** Opaque page cursors. */
  cursor: 256,
  /** Date-times in ISO 8601. */
  dateTime: 40,
  /** URLs. */
  url: 2048,
} as const;

/**
 * No C0 or C1 control character and no DEL: a NUL is refused by the database, and none of them
 * belongs in a name, a reference or an id. Written with escapes so the OpenAPI document's `pattern`
 * carries the same rule to clients.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: naming control characters is this pattern's purpose
const CONTROL_FREE = /^[^\u0000-\u001f\u007f-\u009f]*$/;
/**
 * Half of a surrogate pair on its own: valid JSON, not text (stored, it comes back as U+FFFD). Kept
 * out of the document's pattern, which fuzzers could not use with it; JSON Schema strings are
 * Unicode text already.
 */
const LONE_SURROGATE = /[\ud800-\udfff]/u;
export const CONTROL_CHARACTERS_MESSAGE = "must not contain control characters or unpaired surrogates";

/**
 * The one way the contract declares a string the API takes: at most `max` characters (checked
 * first, and ending validation of the field when it fails), then no control characters, then
 * whatever the field adds. `min` defaults to 0; `min: 1` reads "should not be empty".
 */
export function boundedString(max: number, opts: { min?: number } = {}) {
  const base = opts.min ? z.string().min(opts.min, { abort: true }) : z.string();
  return base
    .max(max, { abort: true })
    .regex(CONTROL_FREE, { message: CONTROL_CHARACTERS_MESSAGE, abort: true })
    .refine((s) => !LONE_SURROGATE.test(s), { message: CONTROL_CHARACTERS_MESSAGE, abort: true });
}

/**
 * A bounded string of one fixed shape, checked after the bounds and the control characters (so their
 * messages come first). The OpenAPI document shows the shape's own pattern: its generator keeps only a
 * string's first pattern, which would be the control characters', and every shape here excludes
 * control characters already. No regex flags: the document carries only the source.
 */
export function shapedString(max: number, shape: RegExp, message: string, opts: { min?: number } = {}) {
  return boundedString(max, opts).regex(shape, message).meta({ pattern: shape.source });
}
