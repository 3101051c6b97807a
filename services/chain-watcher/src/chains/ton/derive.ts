import type { KeyPair } from "@ton/crypto";
import { WalletContractV4 } from "@ton/ton";
// BIP-39 seeding is chain-agnostic; it lives beside the Solana derivation to keep one copy.
import { seedFromMnemonic } from "../shared/seed.ts";
import { slip10Ed25519 } from "../shared/slip10-ed25519.ts";

/**
 * TON keys come from the same BIP-39 mnemonic as Solana (not TON's own 24-word scheme), through
 * SLIP-0010 ed25519 with coin type 607, all levels hardened:
 *
 * Deposit index i  → m/44'/607'/i'/0'
 * Treasury         → m/44'/607'/0'/1'  — a sibling branch no deposit path reaches and not a parent of
 *                                        any deposit key (same reasoning as the Solana layout).
 *
 * The address is the one of a standard wallet v4r2 contract on workchain 0 with the default wallet id.
 * v4r2 rather than v5r1 because a v5 address depends on the network's global id (mainnet vs testnet),
 * and a deposit address must not change with configuration. Deposit wallets stay undeployed until they
 * first send; funds sent non-bounceable to them are credited all the same.
 */
export const tonDepositPath = (index: number): string => {
  if (!Number.isInteger(index) || index < 0 || index > 0x7fffffff) {
    throw new RangeError(`HD index out of range: ${index}`);
  }
  return `m/44'/607'/${index}'/0'`;
};
export const TON_TREASURY_PATH = "m/44'/607'/0'/1'";
export const TON_WORKCHAIN = 0;

export interface TonDerivedWallet {
  keyPair: KeyPair;
  wallet: WalletContractV4;
}

export function tonWalletAt(seed: Uint8Array, path: string): TonDerivedWallet {
  const { privateKey, publicKey } = slip10Ed25519(seed, path);
  // @ton/crypto's secret key is tweetnacl's: the 32-byte seed followed by the public key.
  const keyPair: KeyPair = { publicKey, secretKey: Buffer.concat([privateKey, publicKey]) };
  return {
    keyPair,
    wallet: WalletContractV4.create({ workchain: TON_WORKCHAIN, publicKey: keyPair.publicKey }),
  };
}

export function deriveTonWalletFromSeed(seed: Uint8Array, index: number): TonDerivedWallet {
  return tonWalletAt(seed, tonDepositPath(index));
}

export function deriveTonWallet(mnemonic: string, index: number): TonDerivedWallet {
  return deriveTonWalletFromSeed(seedFromMnemonic(mnemonic), index);
}

/** Raw `0:<hex>` address (the form contracts' normalizeAddress produces) of deposit index `index` of a seed. */
export function tonAddressFromSeed(seed: Uint8Array, index: number): string {
  return deriveTonWalletFromSeed(seed, index).wallet.address.toRawString();
}

/** Raw `0:<hex>` address of deposit index `index`. */
export function deriveTonAddress(mnemonic: string, index: number): string {
  return tonAddressFromSeed(seedFromMnemonic(mnemonic), index);
}

export function deriveTonTreasuryWallet(mnemonic: string): TonDerivedWallet {
  return tonWalletAt(seedFromMnemonic(mnemonic), TON_TREASURY_PATH);
}
