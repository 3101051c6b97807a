import { Decimal } from "decimal.js";
import { type LosslessNumber, parse, stringify } from "lossless-json";

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

/**
 * A request body's type as a client writes it in JSON: the fields the gateway reads losslessly
 * (`LosslessNumber` after parsing) are plain JSON numbers on the wire.
 */
export type JsonBody<T> = T extends LosslessNumber
  ? number
  : T extends readonly (infer U)[]
    ? JsonBody<U>[]
    : T extends object
      ? { [K in keyof T]: JsonBody<T[K]> }
      : T;
