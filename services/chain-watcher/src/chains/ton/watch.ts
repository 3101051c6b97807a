import { TONCOIN_MINT } from "@ramp/contracts";
import { Address, type Transaction } from "@ton/core";
import { z } from "zod";
import type { WatchedAddress } from "../adapter.ts";
import { parseTonTransfer, type TonTransfer, type WatchedJettonWallet } from "./parse-transfers.ts";
import type { TonRpc } from "./rpc.ts";

/** The persisted cursor: per watched wallet (raw form), the logical time of the last transaction handled. */
const Cursor = z.record(z.string(), z.string().regex(/^\d+$/));
export type TonCursor = z.infer<typeof Cursor>;

export function decodeTonCursor(cursor: string | null): TonCursor {
  if (cursor === null || cursor === "") return {};
  return Cursor.parse(JSON.parse(cursor));
}

/** Raw `wc:hex` of any spelling (EQ…, UQ…, raw); the one key every comparison uses. */
export function rawTon(value: string): string {
  return value === TONCOIN_MINT ? value : Address.parse(value).toRawString();
}

export interface WatchedTonWallet {
  owner: Address;
  /** Normalised mints: raw jetton masters and/or `TON`. */
  mints: Set<string>;
}

/** Watched entries merged per account, whatever spelling each entry used. */
export function mergeWatched(watched: WatchedAddress[], extraMint: string | undefined): WatchedTonWallet[] {
  const byRaw = new Map<string, WatchedTonWallet>();
  for (const w of watched) {
    const owner = Address.parse(w.address);
    const entry = byRaw.get(owner.toRawString()) ?? { owner, mints: new Set<string>() };
    for (const mint of w.mints) entry.mints.add(rawTon(mint));
    if (extraMint) entry.mints.add(rawTon(extraMint));
    byRaw.set(owner.toRawString(), entry);
  }
  return [...byRaw.values()];
}

/** Transactions after `afterLt`, oldest first; pages backwards from the newest as the API lists. */
async function transactionsAfter(
  rpc: TonRpc,
  address: Address,
  afterLt: bigint | undefined,
  pageSize: number,
): Promise<Transaction[]> {
  const collected: Transaction[] = [];
  let from: { lt: string; hash: string } | undefined;
  for (;;) {
    const page = await rpc.getTransactions(address, {
      limit: pageSize,
      archival: true,
      ...(afterLt !== undefined ? { to_lt: afterLt.toString() } : {}),
      ...(from ?? {}),
    });
    const fresh = page.filter((tx) => afterLt === undefined || tx.lt > afterLt);
    collected.push(...fresh);
    const oldest = page[page.length - 1];
    if (!oldest || page.length < pageSize || fresh.length < page.length) break;
    from = { lt: oldest.lt.toString(), hash: oldest.hash().toString("base64") };
  }
  return collected.reverse();
}

/** One watched wallet's deposits after the cursor, and the logical time the cursor may move to. */
export async function scanTonWallet(
  rpc: TonRpc,
  wallet: WatchedTonWallet,
  afterLt: string | undefined,
  jettonWallets: ReadonlyMap<string, WatchedJettonWallet>,
  pageSize: number,
): Promise<{ transfers: TonTransfer[]; lastLt: string | undefined }> {
  const txs = await transactionsAfter(rpc, wallet.owner, afterLt ? BigInt(afterLt) : undefined, pageSize);
  const watchToncoin = wallet.mints.has(TONCOIN_MINT);
  const transfers = txs.flatMap(
    (tx) => parseTonTransfer(tx, wallet.owner, jettonWallets, watchToncoin) ?? [],
  );
  const newest = txs[txs.length - 1];
  return { transfers, lastLt: newest ? newest.lt.toString() : afterLt };
}

/** One watched wallet's deposits with logical time in `range` (a reindex), whatever the cursor says. */
export async function scanTonRange(
  rpc: TonRpc,
  wallet: WatchedTonWallet,
  range: { from: bigint; to: bigint },
  jettonWallets: ReadonlyMap<string, WatchedJettonWallet>,
  pageSize: number,
): Promise<TonTransfer[]> {
  const after = range.from > 0n ? range.from - 1n : undefined;
  const txs = (await transactionsAfter(rpc, wallet.owner, after, pageSize)).filter((tx) => tx.lt <= range.to);
  const watchToncoin = wallet.mints.has(TONCOIN_MINT);
  return txs.flatMap((tx) => parseTonTransfer(tx, wallet.owner, jettonWallets, watchToncoin) ?? []);
}
