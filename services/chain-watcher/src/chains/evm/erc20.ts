import { formatUnits, Interface, parseUnits, zeroPadValue } from "ethers";

/** The slice of ERC-20 the watcher and the treasury use. */
export const ERC20 = new Interface([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function balanceOf(address owner) view returns (uint256)",
  "function decimals() view returns (uint8)",
]);

export const TRANSFER_TOPIC = ERC20.getEvent("Transfer")!.topicHash;

/** An address as a 32-byte indexed topic, for filtering logs by `to`. */
export const addressTopic = (address: string): string => zeroPadValue(address.toLowerCase(), 32);

/**
 * Base units → decimal string in token units, without a trailing ".0" for whole amounts
 * ("1000000" at 6 decimals is "1", not "1.0"), so amounts compare as plain decimals downstream.
 */
export function formatTokenAmount(value: bigint, decimals: number): string {
  const s = formatUnits(value, decimals);
  return s.endsWith(".0") ? s.slice(0, -2) : s;
}

/** Decimal string in token units → base units; more fraction digits than the token has is an error. */
export function parseTokenAmount(amount: string, decimals: number): bigint {
  return parseUnits(amount, decimals);
}
