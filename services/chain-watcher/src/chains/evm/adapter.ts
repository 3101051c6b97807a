import type { Chain } from "@ramp/contracts";
import { Contract, getAddress, isAddress, isError } from "ethers";
import type {
  ChainAdapter,
  PollResult,
  PreparedTransfer,
  TransferStatus,
  WatchedAddress,
} from "../adapter.ts";
import { NonceTaken, TransferRejected } from "../errors.ts";
import { createEvmCustody, createEvmRescanner } from "./custody.ts";
import { ERC20, formatTokenAmount, parseTokenAmount } from "./erc20.ts";
import type { EvmKeyring } from "./hd.ts";
import { nextRange, scanTransfers } from "./log-scan.ts";
import { EvmRpcProvider } from "./rpc-provider.ts";
import { signCall } from "./sign.ts";

export interface EvmAdapterOptions {
  chain: Chain;
  rpcUrl: string;
  keyring: EvmKeyring;
  confirmations: number;
  /** Normalised settlement stablecoin, always watched besides the mints of the allocations. */
  stablecoin: string | undefined;
  logChunkBlocks: number;
  startLookbackBlocks: number;
}

/** Node answers meaning "this exact transaction is already in the pool or chain": not a failure. */
const ALREADY_KNOWN = /already known|known transaction|already imported|alreadyknown|already exists/i;

/** An EVM chain's adapter: the family's one (`ChainAdapter`) plus the provider it must let go of. */
export type EvmAdapter = ChainAdapter & { treasuryAddress: string; close(): void };

/** ERC-20 deposits and treasury transfers on one EVM chain over JSON-RPC. */
export function createEvmAdapter(opts: EvmAdapterOptions): EvmAdapter {
  const provider = new EvmRpcProvider(opts.rpcUrl, undefined, { staticNetwork: true, batchMaxCount: 1 });
  const treasury = opts.keyring.treasuryWallet().connect(provider);
  const decimalsOf = new Map<string, Promise<number>>();

  /** Read once per token and cached; a failed read is not cached so the next call retries. */
  function tokenDecimals(mint: string): Promise<number> {
    const token = getAddress(mint);
    let cached = decimalsOf.get(token);
    if (!cached) {
      const erc20 = new Contract(token, ERC20, provider);
      cached = (erc20.getFunction("decimals")() as Promise<bigint>).then(Number);
      cached.catch(() => decimalsOf.delete(token));
      decimalsOf.set(token, cached);
    }
    return cached;
  }

  /** The token contracts a scan reads: the stablecoin and every watched mint. */
  function tokensOf(watched: WatchedAddress[]): string[] {
    // Deduplicated before checksumming: thousands of allocations usually share one or two mints.
    const mints = new Set<string>();
    if (opts.stablecoin) mints.add(opts.stablecoin.toLowerCase());
    for (const w of watched) for (const m of w.mints) mints.add(m.toLowerCase());
    return [...new Set([...mints].filter((m) => isAddress(m)).map((m) => getAddress(m)))];
  }

  return {
    chain: opts.chain,
    treasuryAddress: treasury.address,
    tokenDecimals,
    custody: createEvmCustody({
      chain: opts.chain,
      provider,
      keyring: opts.keyring,
      treasury,
      tokenDecimals,
    }),
    rescanner: createEvmRescanner({
      provider,
      confirmations: opts.confirmations,
      tokens: tokensOf,
      tokenDecimals,
      chunk: opts.logChunkBlocks,
    }),

    deriveAddress(index: number): string {
      return opts.keyring.depositAddress(index);
    },

    async poll(cursor: string | null, watched: WatchedAddress[]): Promise<PollResult> {
      const latest = await provider.getBlockNumber();
      const { confirmations, logChunkBlocks, startLookbackBlocks } = opts;
      const range = nextRange(cursor, latest, confirmations, logChunkBlocks, startLookbackBlocks);
      if (!range) return { transfers: [], cursor: cursor ?? "-1" };
      const transfers = await scanTransfers(provider, range, tokensOf(watched), watched, tokenDecimals);
      return { transfers, cursor: String(range.to) };
    },

    async recipientSetupCost(): Promise<string> {
      return "0";
    },

    /**
     * Signs an ERC-20 transfer from the treasury with an explicit nonce (the treasury's pending count).
     * Callers serialise prepare → store → broadcast per chain, so the pending count already includes every
     * transaction signed before this one.
     */
    async prepareTransfer(req: {
      mint: string;
      recipient: string;
      amount: string;
    }): Promise<PreparedTransfer> {
      if (!isAddress(req.mint) || !isAddress(req.recipient))
        throw new TransferRejected("invalid EVM address");
      const token = getAddress(req.mint);
      const recipient = getAddress(req.recipient);
      const decimals = await tokenDecimals(token);
      let value: bigint;
      try {
        value = parseTokenAmount(req.amount, decimals);
      } catch {
        throw new TransferRejected(`amount ${req.amount} does not fit ${decimals} decimals`);
      }
      if (value <= 0n) throw new TransferRejected("amount must be positive");
      const erc20 = new Contract(token, ERC20, provider);
      const balance = (await erc20.getFunction("balanceOf")(treasury.address)) as bigint;
      if (balance < value) {
        throw new TransferRejected(
          `insufficient treasury balance: has ${formatTokenAmount(balance, decimals)}, needs ${req.amount}`,
        );
      }
      const data = ERC20.encodeFunctionData("transfer", [recipient, value]);
      const { signature, raw } = await signCall(provider, treasury, { to: token, data });
      return { signature, raw };
    },

    async broadcast(prepared: PreparedTransfer): Promise<void> {
      try {
        await provider.broadcastTransaction(prepared.raw);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (ALREADY_KNOWN.test(message)) return;
        // A re-broadcast after a crash: the same hash already in the pool or mined is success. Asked
        // without swallowing errors: "unknown" must be the node's answer before the nonce is given up.
        if (await provider.getTransaction(prepared.signature)) return;
        if (isError(err, "NONCE_EXPIRED")) {
          throw new NonceTaken("nonce already used by another transaction; this one can never be mined");
        }
        throw err;
      }
    },

    async transferStatus(signature: string): Promise<TransferStatus> {
      const receipt = await provider.getTransactionReceipt(signature);
      if (!receipt) return "pending";
      if (receipt.status === 0) return "failed";
      const latest = await provider.getBlockNumber();
      return latest - receipt.blockNumber + 1 >= opts.confirmations ? "confirmed" : "pending";
    },

    close(): void {
      provider.destroy();
    },
  };
}
