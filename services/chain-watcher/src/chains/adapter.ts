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

export interface ChainAdapter {
  readonly chain: Chain;
  /** Where transfers are sent from; none on the sandbox adapter. */
  readonly treasuryAddress?: string;
  /** Lets go of what the adapter holds open (an RPC provider's timers); an adapter holding nothing has none. */
  close?(): void;
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
