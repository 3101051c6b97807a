import { Keypair, PublicKey } from "@solana/web3.js";
import { seedFromMnemonic } from "../shared/seed.ts";
import { slip10Ed25519 } from "../shared/slip10-ed25519.ts";

/**
 * Solana keys: BIP-39 seed → SLIP-0010 ed25519, all levels hardened (ed25519 has no public derivation).
 *
 * Deposit index i  → m/44'/501'/i'/0'  — the layout Phantom and Solflare use, so an operator can
 *                                        recover any deposit address by importing the mnemonic.
 * Treasury         → m/44'/501'/0'/1'  — a sibling branch no deposit path can ever reach (deposit paths
 *                                        always end in /0'), and not a parent of any deposit key, so a
 *                                        leaked deposit key never exposes the treasury.
 */
export const solanaDepositPath = (index: number): string => `m/44'/501'/${checkIndex(index)}'/0'`;
export const SOLANA_TREASURY_PATH = "m/44'/501'/0'/1'";

const MAX_HARDENED_INDEX = 0x7fffffff;

function checkIndex(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index > MAX_HARDENED_INDEX) {
    throw new RangeError(`HD index out of range: ${index}`);
  }
  return index;
}

export function solanaKeypairAt(seed: Uint8Array, path: string): Keypair {
  const { privateKey, publicKey } = slip10Ed25519(seed, path);
  // The public key is native and checked against the seed's derivation in tests; web3.js would
  // recompute it in JavaScript to validate.
  return Keypair.fromSecretKey(Buffer.concat([privateKey, publicKey]), { skipValidation: true });
}

export function deriveSolanaKeypairFromSeed(seed: Uint8Array, index: number): Keypair {
  return solanaKeypairAt(seed, solanaDepositPath(index));
}

export function deriveSolanaKeypair(mnemonic: string, index: number): Keypair {
  return deriveSolanaKeypairFromSeed(seedFromMnemonic(mnemonic), index);
}

/** Base58 public key of deposit index `index` of a BIP-39 seed. */
export function solanaAddressFromSeed(seed: Uint8Array, index: number): string {
  return new PublicKey(slip10Ed25519(seed, solanaDepositPath(index)).publicKey).toBase58();
}

/** Base58 public key of deposit index `index`. */
export function deriveSolanaAddress(mnemonic: string, index: number): string {
  return solanaAddressFromSeed(seedFromMnemonic(mnemonic), index);
}

export function deriveSolanaTreasuryKeypair(mnemonic: string): Keypair {
  return solanaKeypairAt(seedFromMnemonic(mnemonic), SOLANA_TREASURY_PATH);
}
