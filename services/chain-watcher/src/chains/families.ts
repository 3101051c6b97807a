import type { Chain, ChainFamily } from "@ramp/contracts";
import type { StablecoinDefault } from "../networks.ts";
import type { ChainAdapter } from "./adapter.ts";
import { createEvmAdapter } from "./evm/adapter.ts";
import { EvmKeyring } from "./evm/hd.ts";
import { seedFromMnemonic } from "./shared/seed.ts";
import { createSolanaAdapter } from "./solana/adapter.ts";
import { solanaAddressFromSeed } from "./solana/derive.ts";
import { createTonAdapter } from "./ton/adapter.ts";
import { tonAddressFromSeed } from "./ton/derive.ts";

/** What every family's adapter is built from: one shape, one name per setting. */
export interface FamilyAdapterOptions {
  chain: Chain;
  rpcUrl: string;
  confirmations: number;
  /** Settlement stablecoin: normalised address and configured decimals. */
  stablecoin: StablecoinDefault | undefined;
  /** EVM log scanning: the largest block range one eth_getLogs covers, and how far back a first start looks. */
  logChunkBlocks: number;
  startLookbackBlocks: number;
}

/** One family's keys of the custody mnemonic, and its adapters built on them. */
export interface Family {
  /** Deposit address `index`: pure derivation, no I/O. */
  derive(index: number): string;
  adapter(options: FamilyAdapterOptions): ChainAdapter;
}

/**
 * Each family from the custody mnemonic, made once per family: its keys come from a PBKDF2 run, not
 * cheap per chain or per address. EVM derives deposit addresses from its BIP-32 branch; Solana and TON
 * from SLIP-0010 ed25519 keys of the seed. Solana reads a mint's decimals from the mint account, so its
 * stablecoin is an address; TON jetton metadata is usually off-chain, so it takes the configured
 * decimals too.
 */
export const FAMILIES: Record<ChainFamily, (mnemonic: string) => Family> = {
  evm: (mnemonic) => {
    const keyring = new EvmKeyring(mnemonic);
    return {
      derive: (i) => keyring.depositAddress(i),
      adapter: (o) =>
        createEvmAdapter({
          chain: o.chain,
          rpcUrl: o.rpcUrl,
          keyring,
          confirmations: o.confirmations,
          stablecoin: o.stablecoin?.address,
          logChunkBlocks: o.logChunkBlocks,
          startLookbackBlocks: o.startLookbackBlocks,
        }),
    };
  },
  solana: (mnemonic) => {
    const seed = seedFromMnemonic(mnemonic);
    return {
      derive: (i) => solanaAddressFromSeed(seed, i),
      adapter: (o) =>
        createSolanaAdapter({
          rpc: o.rpcUrl,
          mnemonic,
          confirmations: o.confirmations,
          ...(o.stablecoin ? { stablecoin: o.stablecoin.address } : {}),
        }),
    };
  },
  ton: (mnemonic) => {
    const seed = seedFromMnemonic(mnemonic);
    return {
      derive: (i) => tonAddressFromSeed(seed, i),
      adapter: (o) =>
        createTonAdapter({
          rpc: o.rpcUrl,
          mnemonic,
          ...(o.stablecoin ? { stablecoin: o.stablecoin } : {}),
        }),
    };
  },
};
