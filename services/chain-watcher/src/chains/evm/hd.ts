import { HDNodeWallet, Mnemonic } from "ethers";
import { EvmDepositDerivation } from "./deposit-derivation.ts";

/**
 * EVM custody keys, BIP-44 secp256k1 under coin type 60:
 * - deposit addresses: `m/44'/60'/0'/0/<index>` — one address valid on all five EVM chains;
 * - treasury (the wallet onramp deliveries are sent from): `m/44'/60'/1'/0/0`, a separate account so
 *   no allocation index can ever collide with it.
 */
export const EVM_DEPOSIT_PATH = "m/44'/60'/0'/0";
export const EVM_TREASURY_PATH = "m/44'/60'/1'/0/0";

/**
 * Derives from the seed once; per-index derivation is then a public child step from the deposit
 * branch's extended public key (no PBKDF2 run, no private key: see EvmDepositDerivation).
 */
export class EvmKeyring {
  readonly #deposits: EvmDepositDerivation;
  readonly #treasury: HDNodeWallet;
  readonly #depositBranch: HDNodeWallet;

  constructor(mnemonic: string) {
    const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(mnemonic).computeSeed());
    const branch = root.derivePath(EVM_DEPOSIT_PATH);
    this.#deposits = new EvmDepositDerivation(branch.neuter().extendedKey);
    this.#depositBranch = branch;
    this.#treasury = root.derivePath(EVM_TREASURY_PATH);
  }

  depositAddress(index: number): string {
    return this.#deposits.address(index);
  }

  /** Deposit address `index`'s signing wallet, for consolidation only. Never serialise or log it. */
  depositWallet(index: number): HDNodeWallet {
    return this.#depositBranch.deriveChild(index);
  }

  /** The signing wallet; callers connect it to a provider. Never serialise or log it. */
  treasuryWallet(): HDNodeWallet {
    return this.#treasury;
  }

  get treasuryAddress(): string {
    return this.#treasury.address;
  }
}
