import type { Chain } from "@ramp/contracts";
import type { StablecoinDefault } from "../networks.ts";
import type { ChainAdapter } from "./adapter.ts";
import { createSolanaAdapter } from "./solana/adapter.ts";
import { solanaAddressFromSeed } from "./solana/derive.ts";
import { createTonAdapter } from "./ton/adapter.ts";
import { tonAddressFromSeed } from "./ton/derive.ts";

export type NonEvmFamily = "solana" | "ton";

/** What every family's adapter is built from: one shape, one name per setting. */
export interface FamilyAdapterOptions {
  chain: Chain;
  rpcUrl: string;
  mnemonic: string;
  confirmations: number;
  /** Settlement stablecoin: normalised address and configured decimals. */
  stablecoin: StablecoinDefault | undefined;
}

export interface FamilyModule {
  /** Deposit address `index` of a BIP-39 seed (computed once: it is a PBKDF2 run). */
  derive(seed: Uint8Array, index: number): string;
  adapter(options: FamilyAdapterOptions): ChainAdapter;
}

/**
 * The ed25519 families (EVM has its own keyring). Solana reads a mint's decimals from the mint account,
 * so its stablecoin is an address; TON jetton metadata is usually off-chain, so it takes the
 * configured decimals too.
 */
export const FAMILIES: Record<NonEvmFamily, FamilyModule> = {
  solana: {
    derive: solanaAddressFromSeed,
    adapter: (o) =>
      createSolanaAdapter({
        rpc: o.rpcUrl,
        mnemonic: o.mnemonic,
        confirmations: o.confirmations,
        ...(o.stablecoin ? { stablecoin: o.stablecoin.address } : {}),
      }),
  },
  ton: {
    derive: tonAddressFromSeed,
    adapter: (o) =>
      createTonAdapter({
        rpc: o.rpcUrl,
        mnemonic: o.mnemonic,
        ...(o.stablecoin ? { stablecoin: o.stablecoin } : {}),
      }),
  },
};
