import type { Chain } from "@ramp/contracts";
import { Contract, getAddress, type HDNodeWallet, isAddress, isError } from "ethers";
import type {
  ChainAdapter,
  Custody,
  PollResult,
  PreparedTransfer,
  Rescanner,
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

/** ERC-20 deposits and treasury transfers on one EVM chain over JSON-RPC. */
export class EvmAdapter implements ChainAdapter {
  readonly chain: Chain;
  readonly #opts: EvmAdapterOptions;
  readonly #provider: EvmRpcProvider;
  readonly #treasury: HDNodeWallet;
  readonly #decimals = new Map<string, Promise<number>>();
  readonly custody: Custody;
  readonly rescanner: Rescanner;

  constructor(opts: EvmAdapterOptions) {
    this.chain = opts.chain;
    this.#opts = opts;
    this.#provider = new EvmRpcProvider(opts.rpcUrl, undefined, { staticNetwork: true, batchMaxCount: 1 });
    this.#treasury = opts.keyring.treasuryWallet().connect(this.#provider);
    const tokenDecimals = (mint: string) => this.tokenDecimals(mint);
    this.custody = createEvmCustody({
      chain: opts.chain,
      provider: this.#provider,
      keyring: opts.keyring,
      treasury: this.#treasury,
      tokenDecimals,
    });
    this.rescanner = createEvmRescanner({
      provider: this.#provider,
      confirmations: opts.confirmations,
      tokens: (watched) => this.#tokens(watched),
      tokenDecimals,
      chunk: opts.logChunkBlocks,
    });
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
    const transfers = await scanTransfers(this.#provider, range, this.#tokens(watched), watched, (t) =>
      this.tokenDecimals(t),
    );
    return { transfers, cursor: String(range.to) };
  }

  /** The token contracts a scan reads: the stablecoin and every watched mint. */
  #tokens(watched: WatchedAddress[]): string[] {
    // Deduplicated before checksumming: thousands of allocations usually share one or two mints.
    const mints = new Set<string>();
    if (this.#opts.stablecoin) mints.add(this.#opts.stablecoin.toLowerCase());
    for (const w of watched) for (const m of w.mints) mints.add(m.toLowerCase());
    return [...new Set([...mints].filter((m) => isAddress(m)).map((m) => getAddress(m)))];
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
    const { signature, raw } = await signCall(this.#provider, this.#treasury, { to: token, data });
    return { signature, raw };
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
