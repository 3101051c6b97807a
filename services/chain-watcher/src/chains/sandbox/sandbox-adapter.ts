import {
  type Chain,
  chainFamily,
  isChainAddress,
  isChainMint,
  normalizeAddress,
  TONCOIN_MINT,
} from "@ramp/contracts";
import { SANDBOX_TOKEN_DECIMALS, type StablecoinDefault } from "../../networks.ts";
import type { ChainAdapter, PollResult, PreparedTransfer, TransferStatus } from "../adapter.ts";
import { TransferRejected } from "../errors.ts";
import { deterministicTxId } from "./sandbox-ids.ts";

export interface SandboxAdapterOptions {
  chain: Chain;
  /** The family's real HD derivation, so sandbox addresses are in the chain's format. */
  derive: (index: number) => string;
  stablecoin: StablecoinDefault | undefined;
}

/**
 * A chain with no network (RAMP_SANDBOX and no RPC_URL_<CHAIN>). Documented behaviour:
 * - poll never finds anything: sandbox deposits arrive through `Rpc.sandboxChainDeposit`;
 * - a transfer's signature is derived from its request id (same request, same signature), broadcast
 *   does nothing and the transfer is confirmed at once; a malformed recipient or mint is rejected;
 * - decimals: the configured stablecoin's, 9 for Toncoin, else the family default (EVM 18, Solana/TON 9);
 * - recipient setup cost is always "0" (every sandbox recipient already holds a token account).
 */
export class SandboxAdapter implements ChainAdapter {
  readonly chain: Chain;
  readonly #opts: SandboxAdapterOptions;

  constructor(opts: SandboxAdapterOptions) {
    this.chain = opts.chain;
    this.#opts = opts;
  }

  deriveAddress(index: number): string {
    return this.#opts.derive(index);
  }

  async poll(cursor: string | null): Promise<PollResult> {
    return { transfers: [], cursor: cursor ?? "0" };
  }

  async prepareTransfer(req: {
    requestId: string;
    mint: string;
    recipient: string;
    amount: string;
  }): Promise<PreparedTransfer> {
    if (!isChainAddress(this.chain, req.recipient))
      throw new TransferRejected(`invalid ${this.chain} recipient`);
    if (!isChainMint(this.chain, req.mint)) throw new TransferRejected(`invalid ${this.chain} mint`);
    const signature = deterministicTxId(chainFamily(this.chain), `${this.chain}:${req.requestId}`);
    return { signature, raw: JSON.stringify({ sandbox: true, chain: this.chain, ...req }) };
  }

  async broadcast(): Promise<void> {}

  async transferStatus(): Promise<TransferStatus> {
    return "confirmed";
  }

  async tokenDecimals(mint: string): Promise<number> {
    const { stablecoin } = this.#opts;
    if (stablecoin && normalizeAddress(this.chain, mint) === stablecoin.address) return stablecoin.decimals;
    if (this.chain === "TON" && mint === TONCOIN_MINT) return 9;
    return SANDBOX_TOKEN_DECIMALS[chainFamily(this.chain)];
  }

  async recipientSetupCost(): Promise<string> {
    return "0";
  }
}
