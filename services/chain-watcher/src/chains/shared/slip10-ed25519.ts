import { createHmac } from "node:crypto";
import { ed25519 } from "@ramp/runtime";

/**
 * SLIP-0010 ed25519 key derivation (hardened levels only, as ed25519 allows) on node:crypto.
 *
 * Why not micro-key-producer's HDKey, which the tests still use as the reference: each of its child
 * steps computes the parent's public key for a BIP-32 fingerprint that ed25519 addresses never use, so
 * one `m/44'/501'/i'/0'` address cost five scalar multiplications in JavaScript (about 7 ms; 38 % of
 * chain-watcher's CPU per offramp in the external benchmark's profile). Here it is two native
 * HMAC-SHA512 steps below a remembered `m/44'/501'` and one public key from libsodium.
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

/** One SLIP-0010 step: 0x00 || parent private key || ser32(index), keyed by the parent chain code. */
function child(node: Buffer, index: number): Buffer {
  const data = Buffer.alloc(37);
  node.copy(data, 1, 0, 32);
  data.writeUInt32BE(index, 33);
  return createHmac("sha512", node.subarray(32)).update(data).digest();
}

/**
 * Nodes (private key || chain code) above the last two levels, per seed: every deposit path of a chain
 * shares them (`m/44'/501'`), so a new address costs two steps, not five. They reveal nothing the seed
 * this process already holds does not. Kept by the seed's identity: no caller changes a seed in place.
 */
const parents = new WeakMap<Uint8Array, Map<string, Buffer>>();
const MAX_PARENTS = 64;

function parentNode(seed: Uint8Array, indexes: number[]): Buffer {
  const key = indexes.join("/");
  const known = parents.get(seed)?.get(key);
  if (known) return known;
  let node: Buffer = createHmac("sha512", "ed25519 seed").update(seed).digest();
  for (const index of indexes) node = child(node, index);
  const bySeed = parents.get(seed);
  if (bySeed && bySeed.size < MAX_PARENTS) bySeed.set(key, node);
  else parents.set(seed, new Map([[key, node]]));
  return node;
}

/** The private seed at `path` below a BIP-39 seed. */
export function slip10Ed25519PrivateKey(seed: Uint8Array, path: string): Buffer {
  const indexes = hardenedIndexes(path);
  const last = Math.max(0, indexes.length - 2);
  let node = parentNode(seed, indexes.slice(0, last));
  for (const index of indexes.slice(last)) node = child(node, index);
  return Buffer.from(node.subarray(0, 32));
}

export function slip10Ed25519(seed: Uint8Array, path: string): Ed25519Key {
  const privateKey = slip10Ed25519PrivateKey(seed, path);
  return { privateKey, publicKey: ed25519.publicKey(privateKey) };
}
