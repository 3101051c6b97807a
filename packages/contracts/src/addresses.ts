import { Address as TonAddress } from "@ton/core";
import bs58 from "bs58";
import { getAddress, isAddress } from "ethers";
import { type Chain, type ChainFamily, chainFamily } from "./enums.ts";

/**
 * The longest spelling of an address in each family: EVM `0x` and 40 hex digits; Solana 32 bytes in
 * base58 (at most 44 characters); TON raw `-1:` and 64 hex digits (the friendly forms have 48).
 * Anything longer is refused before a parser sees it: base58 decoding takes quadratic time.
 */
export const ADDRESS_MAX_LENGTH: Record<ChainFamily, number> = { evm: 42, solana: 44, ton: 67 };
/** The cap of an address field whose chain is known only with the rest of the body. */
export const MAX_ADDRESS_LENGTH = Math.max(...Object.values(ADDRESS_MAX_LENGTH));

/** The Toncoin pseudo-mint accepted wherever a jetton master address is. */
export const TONCOIN_MINT = "TON";

function isSolanaAddress(value: string): boolean {
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}

function parseTon(value: string): TonAddress | undefined {
  try {
    return TonAddress.parse(value);
  } catch {
    return undefined;
  }
}

/** Whether `value` is an address in `chain`'s format. TON accepts EQ/UQ friendly and raw `0:` forms. */
export function isChainAddress(chain: Chain, value: string): boolean {
  const family = chainFamily(chain);
  if (value.length > ADDRESS_MAX_LENGTH[family]) return false;
  switch (family) {
    case "evm":
      return isAddress(value);
    case "solana":
      return isSolanaAddress(value);
    case "ton":
      return parseTon(value) !== undefined;
  }
}

export function isChainMint(chain: Chain, value: string): boolean {
  if (chainFamily(chain) === "ton" && value === TONCOIN_MINT) return true;
  return isChainAddress(chain, value);
}

/**
 * One spelling per account, for storage and comparison: EVM checksummed, TON raw `wc:hex`,
 * Solana unchanged (base58 has one spelling). Replies still echo what the client sent.
 */
export function normalizeAddress(chain: Chain, value: string): string {
  switch (chainFamily(chain)) {
    case "evm":
      return getAddress(value);
    case "solana":
      return value;
    case "ton": {
      if (value === TONCOIN_MINT) return value;
      const parsed = parseTon(value);
      if (!parsed) throw new Error(`not a TON address: ${value}`);
      return parsed.toRawString();
    }
  }
}
