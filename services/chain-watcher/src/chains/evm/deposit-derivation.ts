import { HDKey } from "@scure/bip32";
import { computeAddress, hexlify } from "ethers";

/** The non-hardened child indexes BIP-32 allows: a deposit index must be below 2^31. */
export const MAX_DEPOSIT_INDEX = 2 ** 31 - 1;

/**
 * Deposit addresses from the deposit branch's extended public key (BIP-32 public child derivation,
 * CKDpub) through @scure/bip32, audited and kept by the author of the curve library it runs on: this
 * system holds custody, so the step that decides where customers' money lands is not written here.
 * BIP-32 guarantees the child is the public key of the private child, so the address is the one a
 * wallet importing the mnemonic shows at `m/44'/60'/0'/0/<index>`; no private key is needed.
 */
export class EvmDepositDerivation {
  readonly #branch: HDKey;

  /** `xpub`: the deposit branch's extended public key (Base58Check, as a wallet exports it). */
  constructor(xpub: string) {
    this.#branch = HDKey.fromExtendedKey(xpub);
    if (this.#branch.privateKey) throw new Error("the deposit branch must be an extended public key");
  }

  /** The checksummed address of child `index`. */
  address(index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_DEPOSIT_INDEX) {
      throw new RangeError(`HD index out of range: ${index}`);
    }
    const child = this.#branch.deriveChild(index);
    // BIP-32 gives an index whose tweak is out of range (probability below 2^-127) no key, and the
    // library then moves on to the next index; two orders must never share an address, so such an
    // index is refused rather than answered with its neighbour's key.
    if (child.index !== index || !child.publicKey) {
      throw new RangeError(`HD index ${index} has no valid key`);
    }
    // An Ethereum address: the last 20 bytes of keccak256 of the uncompressed key (ethers decompresses).
    return computeAddress(hexlify(child.publicKey));
  }
}
