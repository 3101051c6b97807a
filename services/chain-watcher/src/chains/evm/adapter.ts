import type { Chain } from "@ramp/contracts";
import {
  Contract,
  getAddress,
  type HDNodeWallet,
  isAddress,
  isError,
  Transaction,
  type TransactionRequest,
} from "ethers";
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

/** ERC-20 deposits and treasury transfers on one EVM chain over JSON-RPC. */
export class EvmAdapter implements ChainAdapter {
  readonly chain: Chain;
  readonly #opts: EvmAdapterOptions;
  readonly #provider: EvmRpcProvider;
  readonly #treasury: HDNodeWallet;
  readonly #decimals = new Map<string, Promise<number>>();

  constructor(opts: EvmAdapterOptions) {
    this.chain = opts.chain;
    this.#opts = opts;
    this.#provider = new EvmRpcProvider(opts.rpcUrl, undefined, { staticNetwork: true, batchMaxCount: 1 });
    this.#treasury = opts.keyring.treasuryWallet().connect(this.#provider);
  }

  get treasuryAddress(): string {
    return this.#treasury.address;
  }

  deriveAddress(index: number): string {
    return this.#opts.keyring.depositAddress(index);
  }

  async poll(cursor: string | null, watched: WatchedAddress[]): Promise<PollResult> {
    const latest = await this.#provider.getBlockNumber();
    const { confirmations, logChunkBlocks, startLookbackBlocks } = this.#opts;
    const range = nextRange(cursor, latest, confirmations, logChunkBlocks, startLookbackBlocks);
    if (!range) return { transfers: [], cursor: cursor ?? "-1" };
    // Deduplicated before checksumming: thousands of allocations usually share one or two mints.
    const mints = new Set<string>();
    if (this.#opts.stablecoin) mints.add(this.#opts.stablecoin.toLowerCase());
    for (const w of watched) for (const m of w.mints) mints.add(m.toLowerCase());
    const tokens = new Set([...mints].filter((m) => isAddress(m)).map((m) => getAddress(m)));
    const transfers = await scanTransfers(this.#provider, range, [...tokens], watched, (t) =>
      this.tokenDecimals(t),
    );
    return { transfers, cursor: String(range.to) };
  }

  /** Read once per token and cached; a failed read is not cached so the next call retries. */
  tokenDecimals(mint: string): Promise<number> {
    const token = getAddress(mint);
    let cached = this.#decimals.get(token);
    if (!cached) {
      const erc20 = new Contract(token, ERC20, this.#provider);
      cached = (erc20.getFunction("decimals")() as Promise<bigint>).then(Number);
      cached.catch(() => this.#decimals.delete(token));
      this.#decimals.set(token, cached);
    }
    return cached;
  }

  async recipientSetupCost(): Promise<string> {
    return "0";
  }

  /**
   * Signs an ERC-20 transfer from the treasury with an explicit nonce (the treasury's pending count).
   * Callers serialise prepare → store → broadcast per chain, so the pending count already includes every
   * transaction signed before this one.
   */
  async prepareTransfer(req: { mint: string; recipient: string; amount: string }): Promise<PreparedTransfer> {
    if (!isAddress(req.mint) || !isAddress(req.recipient)) throw new TransferRejected("invalid EVM address");
    const token = getAddress(req.mint);
    const recipient = getAddress(req.recipient);
    const decimals = await this.tokenDecimals(token);
    let value: bigint;
    try {
      value = parseTokenAmount(req.amount, decimals);
    } catch {
      throw new TransferRejected(`amount ${req.amount} does not fit ${decimals} decimals`);
    }
    if (value <= 0n) throw new TransferRejected("amount must be positive");
    const erc20 = new Contract(token, ERC20, this.#provider);
    const balance = (await erc20.getFunction("balanceOf")(this.#treasury.address)) as bigint;
    if (balance < value) {
      throw new TransferRejected(
        `insufficient treasury balance: has ${formatTokenAmount(balance, decimals)}, needs ${req.amount}`,
      );
    }
    const data = ERC20.encodeFunctionData("transfer", [recipient, value]);
    const from = this.#treasury.address;
    let gas: bigint;
    try {
      gas = await this.#provider.estimateGas({ from, to: token, data });
    } catch (err) {
      if (isError(err, "CALL_EXCEPTION"))
        throw new TransferRejected(`transfer would revert: ${err.shortMessage}`);
      throw err;
    }
    const [fee, network, nonce] = await Promise.all([
      this.#provider.getFeeData(),
      this.#provider.getNetwork(),
      this.#provider.getTransactionCount(from, "pending"),
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
    const raw = await this.#treasury.signTransaction(tx);
    return { signature: Transaction.from(raw).hash!, raw };
  }

  async broadcast(prepared: PreparedTransfer): Promise<void> {
    try {
      await this.#provider.broadcastTransaction(prepared.raw);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (ALREADY_KNOWN.test(message)) return;
      // A re-broadcast after a crash: the same hash already in the pool or mined is success. Asked
      // without swallowing errors: "unknown" must be the node's answer before the nonce is given up.
      if (await this.#provider.getTransaction(prepared.signature)) return;
      if (isError(err, "NONCE_EXPIRED")) {
        throw new NonceTaken("nonce already used by another transaction; this one can never be mined");
      }
      throw err;
    }
  }

  async transferStatus(signature: string): Promise<TransferStatus> {
    const receipt = await this.#provider.getTransactionReceipt(signature);
    if (!receipt) return "pending";
    if (receipt.status === 0) return "failed";
    const latest = await this.#provider.getBlockNumber();
    return latest - receipt.blockNumber + 1 >= this.#opts.confirmations ? "confirmed" : "pending";
  }

  destroy(): void {
    this.#provider.destroy();
  }
}
