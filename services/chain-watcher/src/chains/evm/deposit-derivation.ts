import { createHmac } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToNumberBE } from "@noble/curves/utils.js";
import { dataSlice, getAddress, getBytes, keccak256 } from "ethers";

const { Point } = secp256k1;
const ORDER = Point.CURVE().n;
/**
 * The generator with a table of its own, with 8-bit windows instead of the library's default 6: a
 * multiplication takes 32 point additions instead of 43, for a table of about 4,000 points built once.
 * A copy, so the library's shared generator keeps its own settings.
 */
const G = Point.fromAffine(Point.BASE.toAffine()).precompute(8, false);

/** The non-hardened child indexes BIP-32 allows: a deposit index must be below 2^31. */
export const MAX_DEPOSIT_INDEX = 2 ** 31 - 1;

/**
 * Deposit addresses from the deposit branch's extended public key (BIP-32 public child derivation,
 * CKDpub): child point = parent point + IL·G, where IL is the first half of HMAC-SHA512(chain code,
 * compressed parent key ‖ index). BIP-32 guarantees this is the public key of the private child, so the
 * address is the one a wallet importing the mnemonic shows at `m/44'/60'/0'/0/<index>`.
 *
 * It is one fixed-base multiplication per address. Deriving the private child through ethers' HD wallet
 * costs about twice that (it computes the child's public key twice, and its fingerprint), and this path
 * needs no private key at all.
 */
export class EvmDepositDerivation {
  readonly #parent: InstanceType<typeof Point>;
  /** Compressed parent key followed by room for the 4-byte index: the HMAC's message. */
  readonly #message: Uint8Array;
  readonly #chainCode: Uint8Array;

  /** `publicKey`: the branch's compressed public key; `chainCode`: its chain code (hex or bytes). */
  constructor(publicKey: string | Uint8Array, chainCode: string | Uint8Array) {
    const key = getBytes(publicKey);
    this.#parent = Point.fromBytes(key);
    this.#message = new Uint8Array(key.length + 4);
    this.#message.set(key);
    this.#chainCode = getBytes(chainCode);
  }

  /** The checksummed address of child `index`. */
  address(index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_DEPOSIT_INDEX) {
      throw new RangeError(`HD index out of range: ${index}`);
    }
    const message = this.#message.slice();
    new DataView(message.buffer).setUint32(message.length - 4, index);
    const il = bytesToNumberBE(
      createHmac("sha512", this.#chainCode).update(message).digest().subarray(0, 32),
    );
    // BIP-32 gives such an index (probability below 2^-127) no key: it is refused, never wrapped around.
    if (il === 0n || il >= ORDER) throw new RangeError(`HD index ${index} has no valid key`);
    // Variable-time multiplication, about twice as fast: IL is computed from the branch's public key,
    // chain code and the index, public derivation data; no private key is ever multiplied here.
    const child = this.#parent.add(G.multiplyUnsafe(il));
    if (child.is0()) throw new RangeError(`HD index ${index} has no valid key`);
    // An Ethereum address: the last 20 bytes of keccak256 of the uncompressed key without its 0x04 prefix.
    return getAddress(dataSlice(keccak256(child.toBytes(false).subarray(1)), 12));
  }
}
