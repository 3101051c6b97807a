import { createPrivateKey, createPublicKey, randomBytes } from "node:crypto";
import { createUser } from "@nats-io/nkeys";
import { describe, expect, it } from "vitest";
import { type Ed25519, ed25519, loadSodium, nodeEd25519, sodiumEd25519 } from "./ed25519.ts";

const sodium = loadSodium();
const curves: Ed25519[] = [nodeEd25519, ...(sodium ? [sodiumEd25519(sodium)] : [])];

/** The raw public key of a raw seed, through node:crypto's own key export. */
function publicKeyOf(seed: Uint8Array): Uint8Array {
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]),
    format: "der",
    type: "pkcs8",
  });
  return createPublicKey(key).export({ format: "der", type: "spki" }).subarray(12);
}

describe("ed25519", () => {
  it("uses libsodium on this platform (its prebuilt binary ships in the npm package)", () => {
    expect(sodium).toBeDefined();
    expect(ed25519.name).toBe("libsodium");
  });

  // Replicas of either kind run side by side during an upgrade, or where no prebuilt binary loads.
  it("libsodium, node:crypto and the nkey itself make the same signature, and each verifies the other's", () => {
    const kp = createUser();
    const seed = (kp as unknown as { getRawSeed(): Uint8Array }).getRawSeed();
    const data = randomBytes(900);
    const byNkey = Buffer.from(kp.sign(data));
    for (const curve of curves) {
      expect(Buffer.from(curve.signer(seed)(data)).equals(byNkey), curve.name).toBe(true);
      for (const other of curves) {
        expect(other.verifier(publicKeyOf(seed))(data, curve.signer(seed)(data)), other.name).toBe(true);
      }
    }
    expect(curves.map((c) => c.name)).toEqual(["node:crypto", "libsodium"]);
  });

  it("libsodium and node:crypto give a seed the public key Node's PKCS#8 import finds", () => {
    for (let i = 0; i < 20; i++) {
      const seed = randomBytes(32);
      const expected = Buffer.from(publicKeyOf(seed));
      for (const curve of curves) expect(curve.publicKey(seed).equals(expected), curve.name).toBe(true);
    }
  });

  for (const curve of curves) {
    it(`${curve.name} refuses a changed message, another key's signature and a signature of another length`, () => {
      const seed = randomBytes(32);
      const data = randomBytes(100);
      const sig = Buffer.from(curve.signer(seed)(data));
      const check = curve.verifier(publicKeyOf(seed));
      expect(check(data, sig)).toBe(true);
      expect(check(randomBytes(100), sig)).toBe(false);
      expect(check(data, curve.signer(randomBytes(32))(data))).toBe(false);
      expect(check(data, sig.subarray(0, 63))).toBe(false);
      expect(check(data, Buffer.concat([sig, Buffer.alloc(1)]))).toBe(false);
      expect(check(data, Buffer.alloc(0))).toBe(false);
    });
  }
});
