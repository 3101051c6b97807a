import { type Chain, Chain as ChainSchema, isChainMint, normalizeAddress } from "@ramp/contracts";
import { ConfigError } from "@ramp/runtime";

/** USD prices of tokens other than the settlement stablecoin (which is always 1). */
export interface PriceFeed {
  usdPrice(chain: Chain, mint: string): string | undefined;
}

/**
 * Parses `TOKEN_USD_PRICES`: `CHAIN:mint=price` entries separated by commas, e.g.
 * `BASE:0x4200000000000000000000000000000000000006=3000,TON:TON=5`.
 */
export function parsePriceTable(spec: string): Map<string, string> {
  const table = new Map<string, string>();
  for (const entry of spec
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^([A-Z]+):([^=]+)=(\d+(?:\.\d+)?)$/.exec(entry);
    const chain = ChainSchema.safeParse(match?.[1]);
    if (!match || !chain.success || !isChainMint(chain.data, match[2]!)) {
      throw new ConfigError(`TOKEN_USD_PRICES: cannot read entry "${entry}" (want CHAIN:mint=price)`);
    }
    table.set(priceKey(chain.data, match[2]!), match[3]!);
  }
  return table;
}

const priceKey = (chain: Chain, mint: string) => `${chain}:${normalizeAddress(chain, mint)}`;

/**
 * The configured table. In the sandbox a token missing from it gets `sandboxDefault` (a documented,
 * deterministic price) so any token can be quoted; outside the sandbox it has no price (→ 503).
 */
export function createPriceFeed(table: Map<string, string>, sandboxDefault: string | undefined): PriceFeed {
  return {
    usdPrice: (chain, mint) => table.get(priceKey(chain, mint)) ?? sandboxDefault,
  };
}
