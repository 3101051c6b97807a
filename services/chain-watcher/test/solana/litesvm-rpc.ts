import { type Address, getTransactionDecoder } from "@solana/kit";
import {
  type AccountInfo,
  type Keypair,
  PublicKey,
  type RpcResponseAndContext,
  type SignatureStatus,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { FailedTransactionMetadata, type LiteSVM } from "litesvm";
import type { SolanaRpc } from "../../src/chains/solana/rpc.ts";

const context = { slot: 1 };
const finalized: SignatureStatus = {
  slot: 1,
  confirmations: null,
  err: null,
  confirmationStatus: "finalized",
};
const decoder = getTransactionDecoder();

/** Executes web3.js-v1 wire bytes on LiteSVM (which speaks @solana/kit types). */
export function executeBytes(svm: LiteSVM, bytes: Uint8Array): FailedTransactionMetadata | undefined {
  const result = svm.sendTransaction(decoder.decode(bytes));
  return result instanceof FailedTransactionMetadata ? result : undefined;
}

/** Signs and runs setup instructions (mint creation, funding) as real transactions. */
export function runInstructions(
  svm: LiteSVM,
  payer: Keypair,
  signers: Keypair[],
  ...ixs: TransactionInstruction[]
) {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: svm.latestBlockhash() }).add(
    ...ixs,
  );
  tx.sign(payer, ...signers);
  const failed = executeBytes(svm, tx.serialize());
  if (failed) throw new Error(`setup transaction failed: ${failed.toString()}`);
}

/**
 * The adapter's RPC surface answered by LiteSVM: account reads, rent, blockhash validity, sending and
 * signature statuses run on the real SVM. The watcher half (signature listings, parsed transactions)
 * is not served here; it is tested on recorded mainnet responses instead.
 */
export function liteSvmRpc(svm: LiteSVM): SolanaRpc {
  const statuses = new Map<string, SignatureStatus>();
  return {
    async getAccountInfo(address: PublicKey): Promise<AccountInfo<Buffer> | null> {
      const account = svm.getAccount(address.toBase58() as Address);
      if (!account.exists) return null;
      return {
        data: Buffer.from(account.data),
        executable: account.executable,
        lamports: Number(account.lamports),
        owner: new PublicKey(account.programAddress),
        rentEpoch: 0,
      };
    },
    async getMinimumBalanceForRentExemption(dataLength: number) {
      return Number(svm.minimumBalanceForRentExemption(BigInt(dataLength)));
    },
    async getLatestBlockhash() {
      return { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1_000_000 };
    },
    async isBlockhashValid(blockhash: string): Promise<RpcResponseAndContext<boolean>> {
      return { context, value: blockhash === svm.latestBlockhash() };
    },
    async sendRawTransaction(raw: Buffer | Uint8Array) {
      const signature = Transaction.from(raw).signature;
      if (!signature) throw new Error("unsigned transaction");
      const id = bs58.encode(signature);
      const failed = executeBytes(svm, raw);
      if (failed && /AlreadyProcessed/.test(failed.toString())) {
        // What a node answers to a duplicate when it does not just drop it.
        throw new Error("Transaction simulation failed: This transaction has already been processed");
      }
      // Like a node with skipPreflight: a failing transaction still lands, with its error recorded.
      statuses.set(id, { ...finalized, err: failed ? { litesvm: failed.toString() } : null });
      return id;
    },
    async getSignatureStatuses(
      signatures: string[],
    ): Promise<RpcResponseAndContext<(SignatureStatus | null)[]>> {
      return { context, value: signatures.map((s) => statuses.get(s) ?? null) };
    },
    async getSignaturesForAddress() {
      throw new Error("not served by LiteSVM: see the recorded-response tests");
    },
    async getParsedTransactions() {
      throw new Error("not served by LiteSVM: see the recorded-response tests");
    },
  };
}
