import { HDKey } from "micro-key-producer/slip10.js";
import { describe, expect, it } from "vitest";
import { slip10Ed25519 } from "./slip10-ed25519.ts";

// SLIP-0010 test vector 1 for ed25519 (seed 000102…0f).
const VECTOR_SEED = Buffer.from("000102030405060708090a0b0c0d0e0f", "hex");

describe("SLIP-0010 ed25519 on node:crypto", () => {
  it("gives the published test vector", () => {
    const key = slip10Ed25519(VECTOR_SEED, "m/0'/1'/2'/2'/1000000000'");
    expect(key.privateKey.toString("hex")).toBe(
      "8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793",
    );
    expect(key.publicKey.toString("hex")).toBe(
      "3c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a",
    );
  });

  // The later paths of a chain start from the node above their last two levels that the first one left.
  it("agrees with micro-key-producer's HDKey on the deposit and treasury paths", () => {
    const seed = Buffer.from("5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc1", "hex");
    for (const path of [
      "m/44'/501'/0'/0'",
      "m/44'/501'/77'/0'",
      "m/44'/607'/123456'/0'",
      "m/44'/501'/0'/1'",
    ]) {
      const reference = HDKey.fromMasterSeed(seed).derive(path);
      const key = slip10Ed25519(seed, path);
      expect(key.privateKey.toString("hex")).toBe(Buffer.from(reference.privateKey).toString("hex"));
      expect(key.publicKey.toString("hex")).toBe(Buffer.from(reference.publicKeyRaw).toString("hex"));
    }
  });

  it("refuses unhardened or malformed levels", () => {
    expect(() => slip10Ed25519(VECTOR_SEED, "m/44'/501/0'")).toThrow(/hardened/);
    expect(() => slip10Ed25519(VECTOR_SEED, "44'/501'")).toThrow(/start with m/);
    expect(() => slip10Ed25519(VECTOR_SEED, `m/${2 ** 31}'`)).toThrow(/hardened/);
  });
});
