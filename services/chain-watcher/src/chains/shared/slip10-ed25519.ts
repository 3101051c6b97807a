import { createHmac, createPrivateKey, createPublicKey } from "node:crypto";

/**
 * SLIP-0010 ed25519 key derivation (hardened levels only, as ed25519 allows) on node:crypto.
 *
 * Why not micro-key-producer's HDKey, which the tests still use as the reference: each of its child
 * steps computes the parent's public key for a BIP-32 fingerprint that ed25519 addresses never use, so
 * one `m/44'/501'/i'/0'` address cost five scalar multiplications in JavaScript (about 7 ms; 38 % of
 * chain-watcher's CPU per offramp in the external benchmark's profile). Here the chain is four native
 * HMAC-SHA512 steps and one native public key.
 */
export interface Ed25519Key {
  /** The 32-byte private seed (what `Keypair.fromSeed` and `keyPairFromSeed` take). */
  privateKey: Buffer;
  /** The 32-byte public key. */
  publicKey: Buffer;
}

const HARDENED = 0x80000000;

/** Parses `m/44'/501'/0'/0'`: every level must be hardened and below 2^31. */
function hardenedIndexes(path: string): number[] {
  const parts = path.split("/");
  if (parts[0] !== "m") throw new Error(`derivation path must start with m: ${path}`);
  return parts.slice(1).map((part) => {
    const m = /^(\d+)'$/.exec(part);
    const index = m ? Number(m[1]) : Number.NaN;
    if (!Number.isSafeInteger(index) || index >= HARDENED)
      throw new Error(`ed25519 derivation takes hardened levels below 2^31: ${path}`);
    return index + HARDENED;
  });
}

/** The private seed at `path` below a BIP-39 seed. */
export function slip10Ed25519PrivateKey(seed: Uint8Array, path: string): Buffer {
  let digest = createHmac("sha512", "ed25519 seed").update(seed).digest();
  const data = Buffer.alloc(37);
  for (const index of hardenedIndexes(path)) {
    // 0x00 || parent private key || ser32(index), keyed by the parent chain code.
    data[0] = 0;
    digest.copy(data, 1, 0, 32);
    data.writeUInt32BE(index, 33);
    digest = createHmac("sha512", digest.subarray(32)).update(data).digest();
  }
  return Buffer.from(digest.subarray(0, 32));
}

/**
 * The ed25519 public key of a 32-byte private seed, computed natively. Imported as a JWK, which Node
 * turns into a key straight from the raw seed (the public `x` it requires is not read for a private
 * key, so it is left empty): a tenth of the cost of decoding the same seed as PKCS#8 DER, which went
 * through OpenSSL's generic decoders (0.48 against 0.05 ms here; the tests hold it to the published
 * SLIP-0010 vector and to the reference library).
 */
export function ed25519PublicKey(privateKey: Uint8Array): Buffer {
  const key = createPrivateKey({
    key: { kty: "OKP", crv: "Ed25519", d: Buffer.from(privateKey).toString("base64url"), x: "" },
    format: "jwk",
  });
  const spki = createPublicKey(key).export({ format: "der", type: "spki" });
  return Buffer.from(spki.subarray(spki.length - 32));
}

export function slip10Ed25519(seed: Uint8Array, path: string): Ed25519Key {
  const privateKey = slip10Ed25519PrivateKey(seed, path);
  return { privateKey, publicKey: ed25519PublicKey(privateKey) };
}
