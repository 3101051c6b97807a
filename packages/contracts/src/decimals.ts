import { z } from "zod";

/** Counts decimals of a JSON number as written (handles exponent notation such as 1e-7). */
export function decimalPlaces(value: number): number {
  const [mantissa = "", exponent] = value.toString().toLowerCase().split("e");
  const fraction = mantissa.split(".")[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/** A positive JSON number with at most `places` decimals. */
export const positiveAmount = (places: number) =>
  z
    .number()
    .positive()
    .refine((n) => Number.isFinite(n) && decimalPlaces(n) <= places, {
      message: `must have at most ${places} decimal places`,
    });

/** A non-negative JSON number with at most `places` decimals. */
export const nonNegativeAmount = (places: number) =>
  z
    .number()
    .nonnegative()
    .refine((n) => Number.isFinite(n) && decimalPlaces(n) <= places, {
      message: `must have at most ${places} decimal places`,
    });

/** Decimal amounts travel between services as strings so no hop goes through binary floating point. */
export const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal string");
export type DecimalString = z.infer<typeof DecimalString>;
