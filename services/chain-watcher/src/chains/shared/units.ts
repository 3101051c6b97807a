/**
 * Token amounts as exact decimal strings ↔ integer base units. Shared by the Solana and TON adapters;
 * no floating point anywhere, so 0.1 + 0.2 problems cannot reach a ledger.
 */

/** `raw` base units with `decimals` → "12.5" style string without trailing zeros. */
export function formatUnits(raw: bigint, decimals: number): string {
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** "12.5" with `decimals` → base units; throws when the amount has more precision than the token. */
export function parseUnits(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) throw new Error(`not a non-negative decimal amount: ${amount}`);
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > decimals) throw new Error(`amount ${amount} has more than ${decimals} decimals`);
  return BigInt(whole + fraction.padEnd(decimals, "0"));
}
