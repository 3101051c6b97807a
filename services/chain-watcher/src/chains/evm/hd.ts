import { HDNodeWallet, Mnemonic } from "ethers";

/**
 * EVM custody keys, BIP-44 secp256k1 under coin type 60:
 * - deposit addresses: `m/44'/60'/0'/0/<index>` — one address valid on all five EVM chains;
 * - treasury (the wallet onramp deliveries are sent from): `m/44'/60'/1'/0/0`, a separate account so
 *   no allocation index can ever collide with it.
 */
export const EVM_DEPOSIT_PATH = "m/44'/60'/0'/0";
export const EVM_TREASURY_PATH = "m/44'/60'/1'/0/0";

/** Derives from the seed once; per-index derivation is then a cheap child step, not a PBKDF2 run. */
export class EvmKeyring {
  readonly #deposits: HDNodeWallet;
  readonly #treasury: HDNodeWallet;

  constructor(mnemonic: string) {
    const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(mnemonic).computeSeed());
    this.#deposits = root.derivePath(EVM_DEPOSIT_PATH);
    this.#treasury = root.derivePath(EVM_TREASURY_PATH);
  }

  depositAddress(index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index >= 2 ** 31) {
      throw new RangeError(`HD index out of range: ${index}`);
    }
    return this.#deposits.deriveChild(index).address;
  }

  /** The signing wallet; callers connect it to a provider. Never serialise or log it. */
  treasuryWallet(): HDNodeWallet {
    return this.#treasury;
  }

  get treasuryAddress(): string {
    return this.#treasury.address;
  }
}
