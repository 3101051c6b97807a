import { Decimal } from "decimal.js";
import { isLosslessNumber, type LosslessNumber } from "lossless-json";
import { z } from "zod";

/** Decimal amounts travel between services as strings so no hop goes through binary floating point. */
export const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal string");
export type DecimalString = z.infer<typeof DecimalString>;

/**
 * Decimals each kind of JSON number may carry at the edge. Token amounts are bounded by the most any
 * token has; orders then checks the token's own decimals.
 */
export const EDGE_DECIMALS = { fiat: 2, rate: 8, token: 18, usdFee: 6 } as const;

/**
 * The values a JSON number may stand for: zero, or a magnitude from 0.000001 up to (excluding) 10^21.
 * Outside that range JavaScript writes a number in exponent notation, so such a value could neither be
 * echoed back as a plain decimal nor survive a client's own JSON encoder unchanged.
 */
const MIN_MAGNITUDE = new Decimal("0.000001");
const MAX_MAGNITUDE = new Decimal("1e21");
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export type Sign = "positive" | "nonNegative";
export type DecimalReading = { ok: true; value: string } | { ok: false; error: string };

/**
 * The one decimal policy of the edge: reads a JSON number from its source text (never through a
 * JavaScript number) and returns its canonical plain decimal string, or why it is refused.
 */
export function readJsonDecimal(text: string, places: number, sign: Sign): DecimalReading {
  if (!JSON_NUMBER.test(text)) return { ok: false, error: "must be a number" };
  const d = new Decimal(text);
  if (!d.isFinite()) return { ok: false, error: "must be a finite number" };
  if (d.decimalPlaces() > places) return { ok: false, error: `must have at most ${places} decimal places` };
  if (sign === "positive" && d.lte(0)) return { ok: false, error: "must be greater than 0" };
  if (sign === "nonNegative" && d.lt(0)) return { ok: false, error: "must be at least 0" };
  if (d.isZero()) return { ok: true, value: "0" };
  if (d.abs().lt(MIN_MAGNITUDE)) return { ok: false, error: `must be at least ${MIN_MAGNITUDE.toFixed()}` };
  if (d.abs().gte(MAX_MAGNITUDE)) return { ok: false, error: `must be less than ${MAX_MAGNITUDE.toFixed()}` };
  return { ok: true, value: d.toFixed() };
}

/** A JSON number as the gateway's lossless parser hands it over: its source text, untouched. */
const jsonNumber = () =>
  z.custom<LosslessNumber>((v) => isLosslessNumber(v), { message: "must be a number" });

/** Where decimal places allow a value below the smallest magnitude taken, the document says so. */
const smallest = (places: number, sign: Sign) =>
  new Decimal(10).pow(-places).lt(MIN_MAGNITUDE)
    ? `; ${sign === "positive" ? "" : "zero or "}at least ${MIN_MAGNITUDE.toFixed()}`
    : "";

/**
 * A JSON number field with at most `places` decimals, read by `readJsonDecimal`; the output is the
 * canonical decimal string. The OpenAPI document shows it as a `number` with the reader's range; the
 * decimal places and "zero or at least 0.000001" are said in words: `multipleOf: 0.01` would be
 * exact, but validators that divide in binary floating point (Python's jsonschema, Ajv by default)
 * would then refuse 0.07, and a client checking its requests against the document would refuse its own.
 */
export const jsonDecimal = (places: number, sign: Sign) =>
  jsonNumber()
    .meta({
      type: "number",
      ...(sign === "positive" ? { exclusiveMinimum: 0 } : { minimum: 0 }),
      exclusiveMaximum: MAX_MAGNITUDE.toNumber(),
      description: `at most ${places} decimal places${smallest(places, sign)}`,
    } as Record<string, unknown>)
    .transform((n, ctx) => {
      const read = readJsonDecimal(n.value, places, sign);
      if (read.ok) return read.value;
      ctx.addIssue({ code: "custom", message: read.error });
      return z.NEVER;
    });

/** A non-negative JSON integer field (no exponent trickery either), handed on as a number. */
export const jsonInteger = (max: number) =>
  jsonNumber()
    .meta({ type: "integer", minimum: 0, maximum: max } as Record<string, unknown>)
    .transform((n, ctx) => {
      const read = readJsonDecimal(n.value, 0, "nonNegative");
      if (read.ok) return Number(read.value);
      const fraction = read.error.startsWith("must have at most");
      ctx.addIssue({ code: "custom", message: fraction ? "must be an integer" : read.error });
      return z.NEVER;
    })
    .pipe(z.number().max(max));
