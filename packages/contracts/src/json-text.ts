import { Decimal } from "decimal.js";
import { parse, stringify } from "lossless-json";

/**
 * Parses a request body keeping every number as its source text (a LosslessNumber), so amounts are
 * read by the edge's decimal policy and never pass through binary floating point.
 */
export function parseJsonText(text: string): unknown {
  return parse(text);
}

const plainNumbers = [
  {
    test: (v: unknown) => typeof v === "number" && Number.isFinite(v),
    stringify: (v: unknown) => new Decimal(v as number).toFixed(),
  },
];

/**
 * JSON text whose numbers are plain decimals, never exponent notation (JSON.stringify writes 5e-7
 * and 1e+21). Replies and webhook bodies go through this.
 */
export function stringifyJson(value: unknown): string {
  return stringify(value, undefined, undefined, plainNumbers) ?? "null";
}
