import {
  type AccountInfo,
  type BlockhashWithExpiryBlockHeight,
  type Commitment,
  type ConfirmedSignatureInfo,
  Connection,
  type Finality,
  type GetVersionedTransactionConfig,
  type IsBlockhashValidConfig,
  type ParsedTransactionWithMeta,
  type PublicKey,
  type RpcResponseAndContext,
  type SendOptions,
  type SignatureStatus,
  type SignatureStatusConfig,
  type SignaturesForAddressOptions,
} from "@solana/web3.js";

/**
 * The slice of `Connection` the Solana adapter uses. A real `Connection` satisfies it; tests inject a
 * LiteSVM-backed implementation (delivery) or a `Connection` whose `fetch` replays recorded responses
 * (watching), so both halves run without a network.
 */
export interface SolanaRpc {
  getSignaturesForAddress(
    address: PublicKey,
    options?: SignaturesForAddressOptions,
    commitment?: Finality,
  ): Promise<ConfirmedSignatureInfo[]>;
  getParsedTransactions(
    signatures: string[],
    config?: GetVersionedTransactionConfig | Finality,
  ): Promise<(ParsedTransactionWithMeta | null)[]>;
  getLatestBlockhash(commitment?: Commitment): Promise<BlockhashWithExpiryBlockHeight>;
  isBlockhashValid(
    blockhash: string,
    config?: IsBlockhashValidConfig,
  ): Promise<RpcResponseAndContext<boolean>>;
  getAccountInfo(address: PublicKey, commitment?: Commitment): Promise<AccountInfo<Buffer> | null>;
  getSlot(commitment?: Commitment): Promise<number>;
  getMinimumBalanceForRentExemption(dataLength: number, commitment?: Commitment): Promise<number>;
  sendRawTransaction(raw: Buffer | Uint8Array, options?: SendOptions): Promise<string>;
  getSignatureStatuses(
    signatures: string[],
    config?: SignatureStatusConfig,
  ): Promise<RpcResponseAndContext<(SignatureStatus | null)[]>>;
}

export function solanaRpc(endpoint: string, commitment: Finality): SolanaRpc {
  return new Connection(endpoint, { commitment, disableRetryOnRateLimit: false });
}
