import {
  badRequest,
  type Chain,
  type DepositToken,
  isChainAddress,
  isChainMint,
  normalizeAddress,
  type Rpc,
  unavailable,
} from "@ramp/contracts";
import { Decimal } from "decimal.js";
import { isError } from "ethers";
import type { z } from "zod";
import type { ChainSettings } from "../chain-settings.ts";
import type { ChainAdapter } from "../chains/adapter.ts";
import type { SwapProvider } from "../swaps/swap-provider.ts";

type TokenInfoRequest = z.infer<typeof Rpc.tokenInfo.request>;
type TokenInfo = z.infer<typeof Rpc.tokenInfo.response>;

/** Whether `mint` is the chain's settlement stablecoin, whatever its spelling (case, checksum, TON form). */
export function isSettlementStablecoin(settings: ChainSettings, mint: string): boolean {
  if (!settings.stablecoin || !isChainMint(settings.chain, mint)) return false;
  return normalizeAddress(settings.chain, mint) === settings.stablecoin.address;
}

/** Setup costs are charged in USD to the cent's fraction, rounded up so the rent is always covered. */
const USD_DP = 6;

export interface TokenInfoDeps {
  settings: (chain: Chain) => ChainSettings;
  adapter: (chain: Chain) => ChainAdapter;
  /** Prices other tokens by what buying one would cost; absent → only the stablecoin is priced. */
  swaps: SwapProvider | undefined;
  solUsdPrice: string;
}

/**
 * A token's decimals, whether it is the settlement stablecoin and its USD price (null when nothing
 * prices it): what tokenInfo answers and what every DepositObserved carries.
 */
export function createDescribeToken(deps: Pick<TokenInfoDeps, "settings" | "adapter" | "swaps">) {
  return async function describeToken(chain: Chain, mint: string): Promise<DepositToken> {
    const stablecoin = isSettlementStablecoin(deps.settings(chain), mint);
    const usdPrice = stablecoin ? "1" : (deps.swaps?.quote(chain, mint, "1") ?? null);
    const decimals = await deps
      .adapter(chain)
      .tokenDecimals(mint)
      .catch((err: unknown) => {
        if (isError(err, "CALL_EXCEPTION") || isError(err, "BAD_DATA")) {
          throw badRequest(`mint ${mint} is not a token on ${chain}`);
        }
        throw unavailable(`${chain} is unavailable`);
      });
    return { decimals, stablecoin, usdPrice };
  };
}

export function createTokenInfo(deps: TokenInfoDeps) {
  const describeToken = createDescribeToken(deps);
  return async function tokenInfo(req: TokenInfoRequest): Promise<TokenInfo> {
    const { chain, mint, recipient, newRecipient } = req;
    if (!isChainMint(chain, mint)) throw badRequest(`mint must be a token address on ${chain}`);
    if (recipient !== undefined && !isChainAddress(chain, recipient)) {
      throw badRequest(`recipient must be an address on ${chain}`);
    }
    const { decimals, stablecoin, usdPrice } = await describeToken(chain, mint);
    if (usdPrice === null) throw unavailable(`No USD price for ${mint} on ${chain}`);
    let setupCostUsd = "0";
    if (recipient !== undefined || newRecipient) {
      const cost = new Decimal(await deps.adapter(chain).recipientSetupCost(recipient ?? null, mint));
      // Only Solana has a setup cost, and it is in SOL (token-account rent).
      if (!cost.isZero() && chain === "SOLANA") {
        setupCostUsd = cost.mul(deps.solUsdPrice).toDecimalPlaces(USD_DP, Decimal.ROUND_UP).toFixed();
      }
    }
    return { decimals, stablecoin, usdPrice, setupCostUsd };
  };
}
