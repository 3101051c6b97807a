import { type ConfirmedSignatureInfo, type Finality, PublicKey } from "@solana/web3.js";
import { z } from "zod";
import { parseSolanaTransfers, type SolanaTransfer, type WatchedTokenAccount } from "./parse-transfers.ts";
import type { SolanaRpc } from "./rpc.ts";

/** The persisted cursor: per token account, the newest signature already handled. */
const Cursor = z.record(z.string(), z.string());
export type SolanaCursor = z.infer<typeof Cursor>;

export function decodeCursor(cursor: string | null): SolanaCursor {
  if (cursor === null || cursor === "") return {};
  return Cursor.parse(JSON.parse(cursor));
}

export interface ScanOptions {
  commitment: Finality;
  /** Signatures per getSignaturesForAddress page (the RPC maximum is 1000). */
  pageSize: number;
  /** Transactions per getParsedTransactions batch; public RPCs throttle large batches. */
  batchSize: number;
  decimalsOf: (mint: string) => number | undefined;
}

/** Signatures after `until`, oldest first. Walks pages backwards because the RPC lists newest first. */
async function newSignatures(
  rpc: SolanaRpc,
  account: PublicKey,
  until: string | undefined,
  opts: ScanOptions,
): Promise<ConfirmedSignatureInfo[]> {
  const collected: ConfirmedSignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await rpc.getSignaturesForAddress(
      account,
      { limit: opts.pageSize, ...(until ? { until } : {}), ...(before ? { before } : {}) },
      opts.commitment,
    );
    collected.push(...page);
    if (page.length < opts.pageSize) break;
    before = page[page.length - 1]?.signature;
  }
  return collected.reverse();
}

/**
 * One token account's new deposits, and how far the cursor may move: past every signature handled,
 * stopping before the first transaction the node could not return yet (it is retried next poll).
 */
export async function scanTokenAccount(
  rpc: SolanaRpc,
  target: WatchedTokenAccount,
  until: string | undefined,
  opts: ScanOptions,
): Promise<{ transfers: SolanaTransfer[]; last: string | undefined }> {
  const signatures = await newSignatures(rpc, new PublicKey(target.ata), until, opts);
  const watched = new Map([[target.ata, target]]);
  const transfers: SolanaTransfer[] = [];
  let last = until;
  for (let start = 0; start < signatures.length; start += opts.batchSize) {
    const batch = signatures.slice(start, start + opts.batchSize);
    // Failed transactions moved nothing; they are skipped without a fetch.
    const wanted = batch.filter((s) => s.err === null).map((s) => s.signature);
    const fetched = wanted.length
      ? await rpc.getParsedTransactions(wanted, {
          commitment: opts.commitment,
          maxSupportedTransactionVersion: 0,
        })
      : [];
    const bySignature = new Map(wanted.map((sig, i) => [sig, fetched[i] ?? null]));
    for (const info of batch) {
      if (info.err === null) {
        const tx = bySignature.get(info.signature);
        if (!tx) return { transfers, last };
        transfers.push(...parseSolanaTransfers(info.signature, tx, watched, opts.decimalsOf));
      }
      last = info.signature;
    }
  }
  return { transfers, last };
}
