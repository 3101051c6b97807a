import { TONCOIN_MINT } from "@ramp/contracts";
import type { Address, Transaction } from "@ton/core";
import { formatUnits } from "../shared/units.ts";
import { OP, readTransferNotification } from "./jetton.ts";

export const TONCOIN_DECIMALS = 9;

/** A jetton wallet whose notifications count: the genuine wallet of a watched owner for `mint`. */
export interface WatchedJettonWallet {
  mint: string;
  decimals: number;
}

export interface TonTransfer {
  /** Transaction hash, hex. */
  txId: string;
  owner: string;
  mint: string;
  amount: string;
  sender: string;
}

/**
 * The deposit one transaction of a watched wallet represents, if any. TON transactions carry exactly
 * one inbound message, so a transaction is at most one deposit.
 *
 * - Jetton: a `transfer_notification` whose source is the owner's genuine jetton wallet for a watched
 *   mint (`jettonWallets`, keyed by raw address). Anyone can send a message with that op code; only
 *   the source check makes it proof of a balance change. The jetton wallet credits the owner before
 *   notifying, so the owner's own transaction outcome does not matter (deposit wallets stay undeployed).
 * - Toncoin (when `watchToncoin`): a plain transfer (empty body or text comment) that stayed, i.e. not
 *   itself a bounce and not bounced back from an account that could not take it.
 */
export function parseTonTransfer(
  tx: Transaction,
  owner: Address,
  jettonWallets: ReadonlyMap<string, WatchedJettonWallet>,
  watchToncoin: boolean,
): TonTransfer | undefined {
  const msg = tx.inMessage;
  if (msg?.info.type !== "internal" || !msg.info.dest.equals(owner)) return undefined;
  const info = msg.info;
  const body = msg.body.beginParse();
  const op = body.remainingBits >= 32 ? body.loadUint(32) : undefined;
  const base = { txId: tx.hash().toString("hex"), owner: owner.toRawString() };

  if (op === OP.transferNotification) {
    const wallet = jettonWallets.get(info.src.toRawString());
    const note = wallet && readTransferNotification(body);
    if (!wallet || !note) return undefined;
    return {
      ...base,
      mint: wallet.mint,
      amount: formatUnits(note.amount, wallet.decimals),
      sender: note.sender.toRawString(),
    };
  }

  if (!watchToncoin || info.bounced || (op !== undefined && op !== OP.comment)) return undefined;
  const d = tx.description;
  const bouncedBack = d.type === "generic" && d.aborted && info.bounce && d.bouncePhase?.type === "ok";
  if (bouncedBack || info.value.coins <= 0n) return undefined;
  return {
    ...base,
    mint: TONCOIN_MINT,
    amount: formatUnits(info.value.coins, TONCOIN_DECIMALS),
    sender: info.src.toRawString(),
  };
}
