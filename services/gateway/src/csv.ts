import { TRANSACTION_FIELDS, type TransactionDto } from "@ramp/contracts";

/**
 * A JSON number written out in full: the same digits `JSON.stringify` gives, but never in exponent
 * notation (1e-7 → 0.0000001), because that is what every number of the public API looks like.
 */
export function plainNumber(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign = "", lead = "", fraction = "", exponent = "0"] = m;
  const digits = lead + fraction;
  const point = 1 + Number(exponent);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(value: string | number): string {
  const s = typeof value === "number" ? plainNumber(value) : value;
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One record, CRLF-terminated as RFC 4180 writes them. */
export const csvRow = (values: readonly (string | number)[]) => `${values.map(csvField).join(",")}\r\n`;

/** The export's header: the Transaction's fields in their documented order (userExternalId last). */
export const transactionCsvHeader = () => csvRow(TRANSACTION_FIELDS);

export const transactionCsvRow = (tx: TransactionDto) => csvRow(TRANSACTION_FIELDS.map((f) => tx[f]));
