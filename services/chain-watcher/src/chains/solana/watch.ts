import { type ConfirmedSignatureInfo, type Finality, PublicKey } from "@solana/web3.js";
import { z } from "zod";
import type { ObservedTransfer } from "../adapter.ts";
import { parseSolanaTransfers, type SolanaTransfer, type WatchedTokenAccount } from "./parse-transfers.ts";
import type { SolanaRpc } from "./rpc.ts";

/** A Solana deposit as the adapter seam reports it. */
export const observed = (t: SolanaTransfer): ObservedTransfer => ({
  txId: t.signature,
  index: t.index,
  to: t.owner,
  mint: t.mint,
  amount: t.amount,
  sender: t.sender,
});

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
 * The deposits among `signatures` (oldest first), fetched in batches, and the last signature handled:
 * it stops before the first transaction the node could not return yet (`complete` false).
 */
async function transfersOf(
  rpc: SolanaRpc,
  target: WatchedTokenAccount,
  signatures: ConfirmedSignatureInfo[],
  until: string | undefined,
  opts: ScanOptions,
): Promise<{ transfers: SolanaTransfer[]; last: string | undefined; complete: boolean }> {
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
        if (!tx) return { transfers, last, complete: false };
        transfers.push(...parseSolanaTransfers(info.signature, tx, watched, opts.decimalsOf));
      }
      last = info.signature;
    }
  }
  return { transfers, last, complete: true };
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
  const { transfers, last } = await transfersOf(rpc, target, signatures, until, opts);
  return { transfers, last };
}

/** One token account's deposits landed in slots `from`..`to` (a reindex), whatever the cursor says. */
export async function scanSlotRange(
  rpc: SolanaRpc,
  target: WatchedTokenAccount,
  range: { from: bigint; to: bigint },
  opts: ScanOptions,
): Promise<SolanaTransfer[]> {
  const account = new PublicKey(target.ata);
  const inRange: ConfirmedSignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await rpc.getSignaturesForAddress(
      account,
      { limit: opts.pageSize, ...(before ? { before } : {}) },
      opts.commitment,
    );
    inRange.push(...page.filter((s) => BigInt(s.slot) >= range.from && BigInt(s.slot) <= range.to));
    const oldest = page[page.length - 1];
    if (!oldest || page.length < opts.pageSize || BigInt(oldest.slot) < range.from) break;
    before = oldest.signature;
  }
  const { transfers, complete } = await transfersOf(rpc, target, inRange.reverse(), undefined, opts);
  if (!complete) throw new Error(`the node could not return every transaction of ${target.ata} yet`);
  return transfers;
}
