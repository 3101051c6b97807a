import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { ComputeBudgetProgram, type Keypair, type PublicKey, Transaction } from "@solana/web3.js";
import bs58 from "bs58";

/** Bytes of an SPL token account; its rent-exempt minimum is what a first transfer to someone costs. */
export const TOKEN_ACCOUNT_SIZE = 165;

export interface TokenTransferPlan {
  /** Pays the fee (and a missing recipient token account); the tokens' owner unless `owner` is given. */
  treasury: Keypair;
  /** Whose tokens move (a deposit address being consolidated); the treasury when absent. */
  owner?: Keypair;
  mint: PublicKey;
  recipient: PublicKey;
  /** Base units. */
  raw: bigint;
  decimals: number;
  blockhash: string;
  tokenProgramId: PublicKey;
  /** Compute-unit price in micro-lamports; 0 sends no compute-budget instructions. */
  priorityFeeMicroLamports: number;
}

export interface SignedTransfer {
  signature: string;
  /** Wire bytes, base64. */
  raw: string;
}

/** Enough for the idempotent ATA create plus transferChecked, with headroom. */
const COMPUTE_UNIT_LIMIT = 60_000;

/**
 * The signed delivery transaction, built without any I/O so tests can hand its bytes to LiteSVM.
 * The recipient's ATA is created idempotently in the same transaction, paid by the treasury: a
 * missing account never fails a delivery and an existing one costs nothing extra.
 */
export function buildTokenTransfer(plan: TokenTransferPlan): SignedTransfer {
  const { treasury, mint, recipient, tokenProgramId } = plan;
  const owner = plan.owner ?? treasury;
  const source = getAssociatedTokenAddressSync(mint, owner.publicKey, true, tokenProgramId);
  const destination = getAssociatedTokenAddressSync(mint, recipient, true, tokenProgramId);
  const tx = new Transaction({ feePayer: treasury.publicKey, recentBlockhash: plan.blockhash });
  if (plan.priorityFeeMicroLamports > 0) {
    tx.add(
      ComputeBudgetProgram.setComputeUnitLimit({ units: COMPUTE_UNIT_LIMIT }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: plan.priorityFeeMicroLamports }),
    );
  }
  tx.add(
    createAssociatedTokenAccountIdempotentInstruction(
      treasury.publicKey,
      destination,
      recipient,
      mint,
      tokenProgramId,
    ),
    createTransferCheckedInstruction(
      source,
      mint,
      destination,
      owner.publicKey,
      plan.raw,
      plan.decimals,
      [],
      tokenProgramId,
    ),
  );
  tx.sign(...(owner === treasury ? [treasury] : [treasury, owner]));
  if (!tx.signature) throw new Error("transaction was not signed");
  return { signature: bs58.encode(tx.signature), raw: tx.serialize().toString("base64") };
}

/** The blockhash a prepared transaction was built on, read back from its bytes after a restart. */
export function preparedBlockhash(raw: string): string | undefined {
  return Transaction.from(Buffer.from(raw, "base64")).recentBlockhash;
}
