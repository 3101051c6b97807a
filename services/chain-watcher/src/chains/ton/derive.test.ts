import { normalizeAddress } from "@ramp/contracts";
import { Address } from "@ton/core";
import { keyPairFromSeed } from "@ton/crypto";
import { describe, expect, it } from "vitest";
import { deriveTonAddress, deriveTonTreasuryWallet, deriveTonWallet, tonDepositPath } from "./derive.ts";

const MNEMONIC = "test test test test test test test test test test test junk";

describe("ton derivation", () => {
  it("matches the recorded vector for the standard test mnemonic", () => {
    expect(deriveTonAddress(MNEMONIC, 0)).toBe(
      "0:87d680af8fadae0a9e57fd69617f8b020947c1d00d37eb2ba183d58e30e34e3a",
    );
    expect(deriveTonAddress(MNEMONIC, 1)).toBe(
      "0:0c827ba25a6b4360fb76f4d63c2a086b32fe1333f0ddb9b36954d32598b1364e",
    );
    expect(deriveTonAddress(MNEMONIC, 2)).toBe(
      "0:b43e3a64ddacc7ecee54ace3db147100086d9c69bbbd70e528517eff0d45cb93",
    );
    expect(deriveTonTreasuryWallet(MNEMONIC).wallet.address.toRawString()).toBe(
      "0:e383522d747fe48d09c11a07822848fc36d7350b3c7dfe73e61e5ed03ae2c4c7",
    );
    expect(tonDepositPath(3)).toBe("m/44'/607'/3'/0'");
  });

  it("returns the raw form that contracts' normalizeAddress produces from any spelling", () => {
    const raw = deriveTonAddress(MNEMONIC, 4);
    const parsed = Address.parse(raw);
    const spellings = [
      raw,
      parsed.toString({ bounceable: true }),
      parsed.toString({ bounceable: false }),
      parsed.toString({ bounceable: false, urlSafe: false }),
    ];
    expect(new Set(spellings).size).toBe(4);
    for (const spelling of spellings) expect(normalizeAddress("TON", spelling)).toBe(raw);
  });

  it("derives the wallet whose key controls the address", () => {
    const { wallet, keyPair } = deriveTonWallet(MNEMONIC, 9);
    expect(wallet.publicKey.equals(keyPair.publicKey)).toBe(true);
    expect(wallet.address.toRawString()).toBe(deriveTonAddress(MNEMONIC, 9));
    expect(wallet.address.workChain).toBe(0);
    // The natively derived key pair is the one @ton/crypto makes from the same seed.
    expect(keyPairFromSeed(keyPair.secretKey.subarray(0, 32))).toEqual(keyPair);
  });

  it("keeps the treasury apart from deposit keys", () => {
    const treasury = deriveTonTreasuryWallet(MNEMONIC).wallet.address.toRawString();
    for (const index of [0, 1, 2, 3]) expect(deriveTonAddress(MNEMONIC, index)).not.toBe(treasury);
  });
});
