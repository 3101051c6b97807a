import { mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";

/** BIP-39 seed of a mnemonic, shared by the ed25519 families (Solana, TON); the error never echoes the words. */
export function seedFromMnemonic(mnemonic: string): Uint8Array {
  const normalized = mnemonic.trim().split(/\s+/).join(" ");
  if (!validateMnemonic(normalized, wordlist)) throw new Error("invalid BIP-39 mnemonic");
  return mnemonicToSeedSync(normalized);
}
