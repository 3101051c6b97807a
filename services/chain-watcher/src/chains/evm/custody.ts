import type { Chain } from "@ramp/contracts";
import {
  Contract,
  formatEther,
  getAddress,
  type HDNodeWallet,
  type JsonRpcProvider,
  parseEther,
} from "ethers";
import type { Custody, PreparedTransfer, Rescanner, WatchedAddress } from "../adapter.ts";
import { TransferRejected } from "../errors.ts";
import { ERC20, formatTokenAmount, parseTokenAmount } from "./erc20.ts";
import type { EvmKeyring } from "./hd.ts";
import { type BlockRange, scanTransfers } from "./log-scan.ts";
import { priceCall, signCall } from "./sign.ts";

/** The coin each EVM chain pays gas in. */
const NATIVE_SYMBOL: Partial<Record<Chain, string>> = {
  ETHEREUM: "ETH",
  BASE: "ETH",
  BSC: "BNB",
  MONAD: "MON",
  ARC: "USDC",
};

/** Blocks one reindex may cover: a few hours on a fast chain, read in EVM_LOG_CHUNK_BLOCKS calls. */
export const EVM_REINDEX_MAX_BLOCKS = 50_000n;

/** Native amounts as decimals without a trailing ".0", like token amounts. */
const formatNative = (wei: bigint) => formatTokenAmount(wei, 18);

export interface EvmCustodyDeps {
  chain: Chain;
  provider: JsonRpcProvider;
  keyring: EvmKeyring;
  treasury: HDNodeWallet;
  tokenDecimals: (mint: string) => Promise<number>;
}

/** The treasury's balances and the two consolidation steps (gas top-up, ERC-20 sweep) on one EVM chain. */
export function createEvmCustody(deps: EvmCustodyDeps): Custody {
  const { provider, treasury } = deps;
  const tokenBalanceRaw = async (owner: string, mint: string) =>
    (await new Contract(getAddress(mint), ERC20, provider).getFunction("balanceOf")(
      getAddress(owner),
    )) as bigint;
  const sweepCall = async (mint: string, amount: string) => {
    const raw = parseTokenAmount(amount, await deps.tokenDecimals(mint));
    return { to: getAddress(mint), data: ERC20.encodeFunctionData("transfer", [treasury.address, raw]) };
  };
  const strip = ({ signature, raw }: PreparedTransfer) => ({ signature, raw });

  return {
    treasuryAddress: treasury.address,
    nativeSymbol: NATIVE_SYMBOL[deps.chain] ?? "ETH",
    nativeBalance: async (owner) => formatNative(await provider.getBalance(getAddress(owner))),
    async tokenBalance(owner, mint) {
      return formatTokenAmount(await tokenBalanceRaw(owner, mint), await deps.tokenDecimals(mint));
    },
    async sweepGasShortfall(owner, mint, amount) {
      const { maxCost } = await priceCall(provider, getAddress(owner), await sweepCall(mint, amount));
      const has = await provider.getBalance(getAddress(owner));
      return has >= maxCost ? "0" : formatNative(maxCost - has);
    },
    async prepareNative(req) {
      const value = parseEther(req.amount);
      if (value <= 0n) throw new TransferRejected("amount must be positive");
      const { signature, raw, maxCost } = await signCall(provider, treasury, {
        to: getAddress(req.recipient),
        value,
      });
      if ((await provider.getBalance(treasury.address)) < value + maxCost)
        throw new TransferRejected(
          `treasury ${formatEther(value + maxCost)} native coin needed for a gas top-up`,
        );
      return { signature, raw };
    },
    async prepareSweep(req) {
      const wallet = deps.keyring.depositWallet(req.index).connect(provider);
      const call = await sweepCall(req.mint, req.amount);
      if (
        (await tokenBalanceRaw(wallet.address, req.mint)) <
        parseTokenAmount(req.amount, await deps.tokenDecimals(req.mint))
      )
        throw new TransferRejected(`deposit address ${wallet.address} holds less than ${req.amount}`);
      const signed = await signCall(provider, wallet, call);
      // Gas prices rose since the top-up: a transient refusal, retried (and topped up again if it lasts).
      if ((await provider.getBalance(wallet.address)) < signed.maxCost)
        throw new Error(`deposit address ${wallet.address} lacks gas for its sweep`);
      return strip(signed);
    },
  };
}

/** Reindex on an EVM chain: the poll's own eth_getLogs scan over any block range. */
export function createEvmRescanner(deps: {
  provider: JsonRpcProvider;
  confirmations: number;
  tokens: (watched: WatchedAddress[]) => string[];
  tokenDecimals: (mint: string) => Promise<number>;
  chunk: number;
}): Rescanner {
  return {
    unit: "block",
    maxSpan: EVM_REINDEX_MAX_BLOCKS,
    async head() {
      return BigInt((await deps.provider.getBlockNumber()) - deps.confirmations + 1);
    },
    async rescan(range, watched) {
      const out = [];
      for (let from = Number(range.from); from <= Number(range.to); from += deps.chunk) {
        const chunk: BlockRange = { from, to: Math.min(Number(range.to), from + deps.chunk - 1) };
        out.push(
          ...(await scanTransfers(deps.provider, chunk, deps.tokens(watched), watched, deps.tokenDecimals)),
        );
      }
      return out;
    },
  };
}
