import { createHmac, createPrivateKey, createPublicKey, pbkdf2Sync } from "node:crypto";
import { Keypair, PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  deriveSolanaAddress,
  deriveSolanaKeypair,
  deriveSolanaTreasuryKeypair,
  SOLANA_TREASURY_PATH,
  solanaDepositPath,
} from "./derive.ts";

const MNEMONIC = "test test test test test test test test test test test junk";

/**
 * A second BIP-39 + SLIP-0010 implementation written out from the specifications (PBKDF2, the HMAC-SHA512
 * chain, the public key from the PKCS#8-wrapped seed), so the production path through @scure/bip39 and
 * shared/slip10-ed25519.ts is checked against the specifications as well as against micro-key-producer
 * (in that file's own test).
 */
function independentSolanaAddress(mnemonic: string, path: string): string {
  const seed = pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
  let digest = createHmac("sha512", "ed25519 seed").update(seed).digest();
  for (const level of path.split("/").slice(1)) {
    const index = (Number.parseInt(level, 10) | 0x80000000) >>> 0;
    const data = Buffer.alloc(37);
    digest.copy(data, 1, 0, 32);
    data.writeUInt32BE(index, 33);
    digest = createHmac("sha512", digest.subarray(32)).update(data).digest();
  }
  const pkcs8 = Buffer.concat([
    Buffer.from("302e020100300506032b657004220420", "hex"),
    digest.subarray(0, 32),
  ]);
  const spki = createPublicKey(createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" })).export({
    format: "der",
    type: "spki",
  });
  // Only base58 encoding is borrowed from web3.js; the key itself comes from node:crypto.
  return new PublicKey(spki.subarray(-32)).toBase58();
}

describe("solana derivation", () => {
  it("matches the recorded vector for the standard test mnemonic", () => {
    // Index 0 is also what Phantom shows for this mnemonic.
    expect(deriveSolanaAddress(MNEMONIC, 0)).toBe("oeYf6KAJkLYhBuR8CiGc6L4D4Xtfepr85fuDgA9kq96");
    expect(deriveSolanaAddress(MNEMONIC, 1)).toBe("AqynRZwvVqUPRwRJXvm6odUb3t93fDjnWe3p6BeuUFxD");
    expect(deriveSolanaAddress(MNEMONIC, 2)).toBe("CqMbRgMuEhQi9BUS8xP44Wk5nENm48FqJnfjEi4eNb1k");
    expect(deriveSolanaTreasuryKeypair(MNEMONIC).publicKey.toBase58()).toBe(
      "2AmbLgAgTeK9Bp3bQmGnw1RkxaxmJZ23bSNDB7A3Fj5x",
    );
  });

  it("agrees with an independent SLIP-0010 implementation", () => {
    for (const index of [0, 1, 7, 1000]) {
      expect(deriveSolanaAddress(MNEMONIC, index)).toBe(
        independentSolanaAddress(MNEMONIC, solanaDepositPath(index)),
      );
    }
    expect(deriveSolanaTreasuryKeypair(MNEMONIC).publicKey.toBase58()).toBe(
      independentSolanaAddress(MNEMONIC, SOLANA_TREASURY_PATH),
    );
  });

  it("is deterministic and gives the keypair of the address", () => {
    const kp = deriveSolanaKeypair(MNEMONIC, 5);
    expect(kp.publicKey.toBase58()).toBe(deriveSolanaAddress(MNEMONIC, 5));
    expect(deriveSolanaKeypair(MNEMONIC, 5).secretKey).toEqual(kp.secretKey);
    // The natively computed public half is the one web3.js derives from the seed half.
    expect(Keypair.fromSeed(kp.secretKey.subarray(0, 32)).secretKey).toEqual(kp.secretKey);
  });

  it("keeps the treasury off every deposit path", () => {
    expect(SOLANA_TREASURY_PATH).not.toMatch(/\/0'$/);
    expect(solanaDepositPath(0)).toBe("m/44'/501'/0'/0'");
  });

  it("rejects bad indices and mnemonics without echoing the words", () => {
    expect(() => deriveSolanaAddress(MNEMONIC, -1)).toThrow(RangeError);
    expect(() => deriveSolanaAddress(MNEMONIC, 2 ** 31)).toThrow(RangeError);
    expect(() => deriveSolanaAddress(MNEMONIC, 1.5)).toThrow(RangeError);
    const bad = "test test test test test test test test test test test test";
    expect(() => deriveSolanaAddress(bad, 0)).toThrow(/^invalid BIP-39 mnemonic$/);
  });
});
