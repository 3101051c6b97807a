import type { Chain } from "@ramp/contracts";
import { Contract, getAddress, isAddress, isError, Transaction, type TransactionRequest } from "ethers";
import type {
  ChainAdapter,
  PollResult,
  PreparedTransfer,
  TransferStatus,
  WatchedAddress,
} from "../adapter.ts";
import { NonceTaken, TransferRejected } from "../errors.ts";
import { ERC20, formatTokenAmount, parseTokenAmount } from "./erc20.ts";
import type { EvmKeyring } from "./hd.ts";
import { nextRange, scanTransfers } from "./log-scan.ts";
import { EvmRpcProvider } from "./rpc-provider.ts";

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

  return {
    chain: opts.chain,
    treasuryAddress: treasury.address,
    tokenDecimals,

    deriveAddress(index: number): string {
      return opts.keyring.depositAddress(index);
    },

    async poll(cursor: string | null, watched: WatchedAddress[]): Promise<PollResult> {
      const latest = await provider.getBlockNumber();
      const { confirmations, logChunkBlocks, startLookbackBlocks } = opts;
      const range = nextRange(cursor, latest, confirmations, logChunkBlocks, startLookbackBlocks);
      if (!range) return { transfers: [], cursor: cursor ?? "-1" };
      // Deduplicated before checksumming: thousands of allocations usually share one or two mints.
      const mints = new Set<string>();
      if (opts.stablecoin) mints.add(opts.stablecoin.toLowerCase());
      for (const w of watched) for (const m of w.mints) mints.add(m.toLowerCase());
      const tokens = new Set([...mints].filter((m) => isAddress(m)).map((m) => getAddress(m)));
      const transfers = await scanTransfers(provider, range, [...tokens], watched, (t) => tokenDecimals(t));
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
      const from = treasury.address;
      let gas: bigint;
      try {
        gas = await provider.estimateGas({ from, to: token, data });
      } catch (err) {
        if (isError(err, "CALL_EXCEPTION"))
          throw new TransferRejected(`transfer would revert: ${err.shortMessage}`);
        throw err;
      }
      const [fee, network, nonce] = await Promise.all([
        provider.getFeeData(),
        provider.getNetwork(),
        provider.getTransactionCount(from, "pending"),
      ]);
      const tx: TransactionRequest = {
        to: token,
        data,
        nonce,
        chainId: network.chainId,
        gasLimit: (gas * 12n) / 10n,
      };
      if (fee.maxFeePerGas !== null && fee.maxPriorityFeePerGas !== null) {
        Object.assign(tx, {
          type: 2,
          maxFeePerGas: fee.maxFeePerGas,
          maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
        });
      } else {
        Object.assign(tx, { type: 0, gasPrice: fee.gasPrice });
      }
      const raw = await treasury.signTransaction(tx);
      return { signature: Transaction.from(raw).hash!, raw };
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
