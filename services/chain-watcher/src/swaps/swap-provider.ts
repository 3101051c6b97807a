import { type Chain, chainFamily } from "@ramp/contracts";
import { Decimal } from "decimal.js";
import type { PreparedTransfer, TransferStatus } from "../chains/adapter.ts";
import { deterministicTxId } from "../chains/sandbox/sandbox-ids.ts";
import type { PriceFeed } from "../prices/price-feed.ts";

/**
 * Onramp of a token other than the settlement stablecoin: the treasury's stablecoin
 * is swapped on-chain with the output delivered straight to the recipient. The same prepare → store →
 * broadcast → track life as a plain transfer, so a crash can never swap twice.
 */
export interface SwapProvider {
  /** Stablecoin needed to buy `amountOut` of `mint` now (decimal strings), or undefined if it cannot be. */
  quote(chain: Chain, mint: string, amountOut: string): string | undefined;
  /** Signs (does not send) a swap delivering `amount` of `mint` to `recipient`; idempotent per requestId. */
  prepareSwap(req: {
    requestId: string;
    chain: Chain;
    mint: string;
    recipient: string;
    amount: string;
  }): Promise<PreparedTransfer>;
  broadcast(chain: Chain, prepared: PreparedTransfer): Promise<void>;
  swapStatus(chain: Chain, signature: string): Promise<TransferStatus>;
}

/**
 * Sandbox: quotes from the price table, and every swap fills at once at exactly the quoted
 * amount, with a deterministic signature in the chain's native spelling. No chain is touched.
 */
export function createSandboxSwapProvider(prices: PriceFeed): SwapProvider {
  return {
    quote(chain, mint, amountOut) {
      const price = prices.usdPrice(chain, mint);
      return price === undefined ? undefined : new Decimal(amountOut).mul(price).toFixed();
    },
    async prepareSwap(req) {
      return {
        signature: deterministicTxId(chainFamily(req.chain), `swap:${req.requestId}`),
        raw: JSON.stringify(req),
      };
    },
    async broadcast() {},
    async swapStatus() {
      return "confirmed";
    },
  };
}
