import {
  type Chain,
  chainFamily,
  isChainAddress,
  isChainMint,
  normalizeAddress,
  TONCOIN_MINT,
} from "@ramp/contracts";
import { SANDBOX_TOKEN_DECIMALS, type StablecoinDefault } from "../../networks.ts";
import type { ChainAdapter } from "../adapter.ts";
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
export function createSandboxAdapter(opts: SandboxAdapterOptions): ChainAdapter {
  const { chain, stablecoin } = opts;
  return {
    chain,
    deriveAddress: (index) => opts.derive(index),

    async poll(cursor) {
      return { transfers: [], cursor: cursor ?? "0" };
    },

    async prepareTransfer(req) {
      if (!isChainAddress(chain, req.recipient)) throw new TransferRejected(`invalid ${chain} recipient`);
      if (!isChainMint(chain, req.mint)) throw new TransferRejected(`invalid ${chain} mint`);
      const signature = deterministicTxId(chainFamily(chain), `${chain}:${req.requestId}`);
      return { signature, raw: JSON.stringify({ sandbox: true, chain, ...req }) };
    },

    async broadcast() {},

    async transferStatus() {
      return "confirmed";
    },

    async tokenDecimals(mint) {
      if (stablecoin && normalizeAddress(chain, mint) === stablecoin.address) return stablecoin.decimals;
      if (chain === "TON" && mint === TONCOIN_MINT) return 9;
      return SANDBOX_TOKEN_DECIMALS[chainFamily(chain)];
    },

    async recipientSetupCost() {
      return "0";
    },
  };
}
