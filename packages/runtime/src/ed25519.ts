import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { createRequire } from "node:module";

/**
 * Ed25519 signing and verification of raw 32-byte keys. Every stream message is signed by its
 * publisher and checked by each consumer, so this is on the path of every event: libsodium
 * (sodium-native, a prebuilt binary in its npm package) verifies in about 50 µs where Node's OpenSSL 3.0
 * takes 110-150 µs on the same machine, and signs in 20 µs against 40-50 µs. The public key of a seed
 * (each ed25519 deposit address, so once per order on Solana and TON) takes 24-32 µs against 210-250 µs
 * through Node's key objects. Ed25519 signatures are deterministic (RFC 8032), so both make the same
 * bytes and each verifies the other's: replicas of either kind work side by side. Node's own is the
 * fallback where no prebuilt binary loads.
 */
export interface Ed25519 {
  readonly name: "libsodium" | "node:crypto";
  /** Signs with the key pair of a 32-byte seed. */
  signer(seed: Uint8Array): (data: Uint8Array) => Uint8Array;
  /** The 32-byte public key of a 32-byte seed (a deposit address is one, per order on ed25519 chains). */
  publicKey(seed: Uint8Array): Buffer;
  /** Checks 64-byte signatures against a 32-byte public key; anything else is refused, not thrown. */
  verifier(publicKey: Uint8Array): (data: Uint8Array, signature: Uint8Array) => boolean;
}

const SIGNATURE_BYTES = 64;

// DER headers that make a raw seed or public key an ed25519 PKCS#8 or SPKI key for node:crypto.
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

export const nodeEd25519: Ed25519 = {
  name: "node:crypto",
  signer(seed) {
    const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
    return (data) => sign(null, data, key);
  },
  publicKey(seed) {
    // A JWK import takes the raw seed without OpenSSL's generic DER decoders; `x` is not read for a
    // private key, so it is left empty.
    const key = createPrivateKey({
      key: { kty: "OKP", crv: "Ed25519", d: Buffer.from(seed).toString("base64url"), x: "" },
      format: "jwk",
    });
    const spki = createPublicKey(key).export({ format: "der", type: "spki" });
    return Buffer.from(spki.subarray(SPKI_ED25519.length));
  },
  verifier(publicKey) {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519, publicKey]),
      format: "der",
      type: "spki",
    });
    return (data, signature) => signature.length === SIGNATURE_BYTES && verify(null, data, key, signature);
  },
};

/** The part of sodium-native used here. */
interface Sodium {
  crypto_sign_seed_keypair(publicKey: Buffer, secretKey: Buffer, seed: Buffer): void;
  crypto_sign_detached(signature: Buffer, message: Uint8Array, secretKey: Buffer): void;
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Buffer): boolean;
}

const isSodium = (m: unknown): m is Sodium =>
  typeof m === "object" &&
  m !== null &&
  ["crypto_sign_seed_keypair", "crypto_sign_detached", "crypto_sign_verify_detached"].every(
    (f) => typeof (m as Record<string, unknown>)[f] === "function",
  );

export function sodiumEd25519(sodium: Sodium): Ed25519 {
  return {
    name: "libsodium",
    signer(seed) {
      const publicKey = Buffer.alloc(32);
      const secretKey = Buffer.alloc(64);
      sodium.crypto_sign_seed_keypair(publicKey, secretKey, Buffer.from(seed));
      return (data) => {
        const signature = Buffer.alloc(SIGNATURE_BYTES);
        sodium.crypto_sign_detached(signature, data, secretKey);
        return signature;
      };
    },
    publicKey(seed) {
      const publicKey = Buffer.alloc(32);
      sodium.crypto_sign_seed_keypair(publicKey, Buffer.alloc(64), Buffer.from(seed));
      return publicKey;
    },
    verifier(publicKey) {
      const key = Buffer.from(publicKey);
      // sodium-native throws on a signature of another length; a refusal is what a caller expects.
      return (data, signature) =>
        signature.length === SIGNATURE_BYTES && sodium.crypto_sign_verify_detached(signature, data, key);
    },
  };
}

/** sodium-native, when its prebuilt binary loads on this platform. */
export function loadSodium(): Sodium | undefined {
  try {
    const loaded: unknown = createRequire(import.meta.url)("sodium-native");
    return isSodium(loaded) ? loaded : undefined;
  } catch {
    return undefined;
  }
}

const sodium = loadSodium();
/** libsodium when it loads, else Node's own. */
export const ed25519: Ed25519 = sodium ? sodiumEd25519(sodium) : nodeEd25519;
