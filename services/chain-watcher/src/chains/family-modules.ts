import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Chain } from "@ramp/contracts";
import type { StablecoinDefault } from "../networks.ts";
import type { ChainAdapter } from "./adapter.ts";

/**
 * Solana and TON live in their own folders (`chains/solana`, `chains/ton`), written separately. They are
 * loaded by path at start-up so this service builds and runs, with those chains unavailable, before
 * they exist. The modules this file looks for:
 * - `<family>/derive.ts` exporting `deriveSolanaAddress(mnemonic, index): string` /
 *   `deriveTonAddress(mnemonic, index): string | Promise<string>`;
 * - `<family>/adapter.ts` exporting `createSolanaAdapter` / `createTonAdapter`, called with
 *   `FamilyAdapterOptions` (used only when the chain has an RPC URL).
 */
export type NonEvmFamily = "solana" | "ton";

export type AsyncDeriver = (index: number) => Promise<string>;

export interface FamilyAdapterOptions {
  chain: Chain;
  /** The endpoint, under both names the family factories may read. */
  rpc: string;
  rpcUrl: string;
  mnemonic: string;
  confirmations: number;
  /** Settlement stablecoin: normalised address and configured decimals. */
  stablecoin: StablecoinDefault | undefined;
}

const DERIVE_EXPORT: Record<NonEvmFamily, string> = {
  solana: "deriveSolanaAddress",
  ton: "deriveTonAddress",
};
const ADAPTER_EXPORT: Record<NonEvmFamily, string> = {
  solana: "createSolanaAdapter",
  ton: "createTonAdapter",
};
/**
 * What each factory is called with. The factories differ in the stablecoin they take: Solana reads
 * decimals from the mint account (an address is enough), TON's jetton metadata is usually off-chain,
 * so it needs the configured decimals along with the address.
 */
const ADAPTER_OPTIONS: Record<NonEvmFamily, (o: FamilyAdapterOptions) => Record<string, unknown>> = {
  solana: ({ stablecoin, ...rest }) => ({ ...rest, stablecoin: stablecoin?.address }),
  ton: (o) => ({ ...o }),
};

async function importIfPresent(relative: string): Promise<Record<string, unknown> | undefined> {
  const url = new URL(relative, import.meta.url);
  if (!existsSync(fileURLToPath(url))) return undefined;
  return (await import(url.href)) as Record<string, unknown>;
}

/** The family's address derivation bound to the seed, or undefined when its module is not there yet. */
export async function loadFamilyDeriver(
  family: NonEvmFamily,
  mnemonic: string,
): Promise<AsyncDeriver | undefined> {
  const mod = await importIfPresent(`./${family}/derive.ts`);
  const fn = mod?.[DERIVE_EXPORT[family]];
  if (typeof fn !== "function") return undefined;
  return async (index) => {
    const address: unknown = await fn(mnemonic, index);
    if (typeof address !== "string") throw new Error(`${family} derivation returned no address`);
    return address;
  };
}

export async function loadFamilyAdapter(
  family: NonEvmFamily,
  options: FamilyAdapterOptions,
): Promise<ChainAdapter | undefined> {
  const mod = await importIfPresent(`./${family}/adapter.ts`);
  const create = mod?.[ADAPTER_EXPORT[family]];
  if (typeof create !== "function") return undefined;
  return (await create(ADAPTER_OPTIONS[family](options))) as ChainAdapter;
}
