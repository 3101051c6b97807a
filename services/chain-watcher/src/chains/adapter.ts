import type { Chain } from "@ramp/contracts";

/**
 * The seam between chain-watcher's domain (allocation, watch list, cursors, dedupe, outbox) and one
 * chain's I/O. One adapter instance serves one chain. Amounts cross this seam as decimal strings in
 * token units (decimals applied), never as floats.
 */
export interface WatchedAddress {
  /** The address as allocated (the owner, not a token account). */
  address: string;
  /** Token addresses (normalised) whose arrivals count; `TON` for Toncoin on TON. */
  mints: string[];
}

export interface ObservedTransfer {
  /** Transaction hash / signature. */
  txId: string;
  /** Position inside the transaction (EVM log index, instruction index, ...); with txId it is unique. */
  index: number;
  /** The watched owner address that received the tokens. */
  to: string;
  mint: string;
  amount: string;
  sender: string;
}

export interface PollResult {
  transfers: ObservedTransfer[];
  /** Opaque resume point; persisted by the caller only after every transfer above is stored. */
  cursor: string;
}

export interface PreparedTransfer {
  /** The id the chain will know the transaction by, known before broadcast. */
  signature: string;
  /** Serialized signed transaction, re-broadcastable after a crash. */
  raw: string;
}

export type TransferStatus = "pending" | "confirmed" | "failed";

export interface TransferRequest {
  requestId: string;
  mint: string;
  recipient: string;
  amount: string;
}

/** A position range on a chain: blocks (EVM), slots (Solana) or logical times (TON), inclusive. */
export interface ScanRange {
  from: bigint;
  to: bigint;
}

/**
 * What money operations need of a chain beyond watching and paying: the treasury's balances, the gas
 * top-up of a deposit address, and signing a deposit address's tokens over to the treasury. Amounts
 * are decimal strings in token units.
 */
export interface Custody {
  readonly treasuryAddress: string;
  /** The chain's native coin: ETH, SOL, TON... */
  readonly nativeSymbol: string;
  nativeBalance(owner: string): Promise<string>;
  tokenBalance(owner: string, mint: string): Promise<string>;
  /**
   * Native coin deposit `owner` still lacks to send `amount` of `mint` to the treasury once; "0" when
   * it has enough or when the treasury pays the fee itself (Solana).
   */
  sweepGasShortfall(owner: string, mint: string, amount: string): Promise<string>;
  /** Signs a native payment from the treasury to `recipient` (the gas top-up). */
  prepareNative(req: { requestId: string; recipient: string; amount: string }): Promise<PreparedTransfer>;
  /** Signs moving `amount` of `mint` from deposit address `index` to the treasury. */
  prepareSweep(req: {
    requestId: string;
    index: number;
    mint: string;
    amount: string;
  }): Promise<PreparedTransfer>;
}

/** Scanning a range again, whatever the cursor says (reindex). */
export interface Rescanner {
  /** What the range's positions are: blocks, slots or logical times. */
  readonly unit: "block" | "slot" | "lt";
  /** The widest range one reindex may ask for. */
  readonly maxSpan: bigint;
  /** The newest position the poll would read now (confirmations applied). */
  head(): Promise<bigint>;
  /** Transfers to `watched` inside `range`, read as the poll reads them. */
  rescan(range: ScanRange, watched: WatchedAddress[]): Promise<ObservedTransfer[]>;
}

export interface ChainAdapter {
  readonly chain: Chain;
  /** Where transfers are sent from; none on the sandbox adapter. */
  readonly treasuryAddress?: string;
  /** Lets go of what the adapter holds open (an RPC provider's timers); an adapter holding nothing has none. */
  close?(): void;
  /** Absent where there is no real chain (the sandbox adapter). */
  readonly custody?: Custody;
  readonly rescanner?: Rescanner;
  /** Deposit address for HD index `index` of this chain's family. Pure derivation, no I/O. */
  deriveAddress(index: number): string;
  /** Transfers to watched addresses with at least the configured confirmations, after `cursor`. */
  poll(cursor: string | null, watched: WatchedAddress[]): Promise<PollResult>;
  /** Signs (does not send) a transfer of `amount` of `mint` from the treasury to `recipient`. */
  prepareTransfer(req: TransferRequest): Promise<PreparedTransfer>;
  /** Sends a prepared transaction; sending the same one twice is harmless. */
  broadcast(prepared: PreparedTransfer): Promise<void>;
  transferStatus(signature: string): Promise<TransferStatus>;
  tokenDecimals(mint: string): Promise<number>;
  /**
   * Solana only: the rent (in SOL, decimal string) a first transfer to `recipient` would pay to create
   * its token account for `mint`, or "0" when the account exists; with `null`, the rent a recipient that
   * never held `mint` would pay (a quote, priced before its recipient is known). Other chains answer "0".
   */
  recipientSetupCost(recipient: string | null, mint: string): Promise<string>;
}
