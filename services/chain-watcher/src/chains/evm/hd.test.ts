import { HDNodeWallet, Mnemonic, Wallet } from "ethers";
import { describe, expect, it } from "vitest";
import { DEV_MNEMONIC } from "../../config.ts";
import { EvmDepositDerivation } from "./deposit-derivation.ts";
import { EVM_DEPOSIT_PATH, EvmKeyring } from "./hd.ts";

describe("EvmKeyring", () => {
  const keyring = new EvmKeyring(DEV_MNEMONIC);

  it("derives the standard vector for m/44'/60'/0'/0/i", () => {
    expect(keyring.depositAddress(0)).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(keyring.depositAddress(1)).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
  });

  it("gives, from the public branch, the address of the private key a wallet derives at each index", () => {
    // Another mnemonic besides the dev one, so the check does not rest on one key's vectors.
    for (const phrase of [DEV_MNEMONIC, Wallet.createRandom().mnemonic?.phrase ?? ""]) {
      const ours = new EvmKeyring(phrase);
      const branch = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(phrase).computeSeed()).derivePath(
        EVM_DEPOSIT_PATH,
      );
      for (const index of [0, 1, 2, 63, 64, 1000, 123_456, 2 ** 31 - 1]) {
        expect(ours.depositAddress(index)).toBe(branch.deriveChild(index).address);
      }
    }
  });

  it("is deterministic across instances", () => {
    const other = new EvmKeyring(DEV_MNEMONIC);
    expect(other.depositAddress(42)).toBe(keyring.depositAddress(42));
  });

  it("keeps the treasury outside every deposit index", () => {
    const deposits = new Set(Array.from({ length: 20 }, (_, i) => keyring.depositAddress(i)));
    expect(deposits.has(keyring.treasuryAddress)).toBe(false);
  });

  it("refuses indexes outside the non-hardened range", () => {
    expect(() => keyring.depositAddress(-1)).toThrow(RangeError);
    expect(() => keyring.depositAddress(2 ** 31)).toThrow(RangeError);
  });

  it("derives deposit addresses only from an extended public key, never a private one", () => {
    const branch = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(DEV_MNEMONIC).computeSeed()).derivePath(
      EVM_DEPOSIT_PATH,
    );
    expect(() => new EvmDepositDerivation(branch.extendedKey)).toThrow(/extended public key/);
    expect(new EvmDepositDerivation(branch.neuter().extendedKey).address(0)).toBe(keyring.depositAddress(0));
  });
});
