import {
  type Address,
  beginCell,
  Cell,
  external,
  internal,
  loadMessage,
  type Message,
  SendMode,
  storeMessage,
} from "@ton/core";
import type { KeyPair } from "@ton/crypto";
import type { WalletContractV4 } from "@ton/ton";
import { jettonTransferBody } from "./jetton.ts";

export interface TonSender {
  wallet: WalletContractV4;
  keyPair: KeyPair;
}

export type TonPayment =
  | { kind: "toncoin"; recipient: Address; nano: bigint }
  /** Everything the wallet holds, its fees taken out of it: a deposit wallet's Toncoin consolidated. */
  | { kind: "toncoin-all"; recipient: Address }
  | {
      kind: "jetton";
      /** The treasury's own jetton wallet, which the transfer request goes to. */
      jettonWallet: Address;
      recipient: Address;
      raw: bigint;
      queryId: bigint;
      /** Toncoin attached for the jetton wallets' fees; the unused part returns to the treasury. */
      gasNano: bigint;
      forwardNano: bigint;
      /** Where the unused Toncoin returns; the sender when absent. */
      responseTo?: Address;
    };

export interface PreparedTon {
  /** Hash of the external message cell, hex: what transferStatus looks the transaction up by. */
  signature: string;
  /** The external message as a base64 BOC. */
  raw: string;
}

/** The cell hash a prepared or received external message is known by. */
export function messageHash(message: Message): string {
  return beginCell().store(storeMessage(message)).endCell().hash().toString("hex");
}

/**
 * The signed external message that makes the treasury wallet pay. Its seqno makes it single-use:
 * two messages prepared at the same seqno can never both execute, so a re-prepare after a crash cannot
 * double-pay, and re-sending the same BOC is rejected by the wallet once it ran. Recipients are paid
 * non-bounceable, so an undeployed recipient wallet is credited instead of bouncing the payment.
 */
export function buildTonTransfer(
  sender: TonSender,
  seqno: number,
  validUntil: number,
  pay: TonPayment,
): PreparedTon {
  const message =
    pay.kind === "toncoin" || pay.kind === "toncoin-all"
      ? internal({ to: pay.recipient, value: pay.kind === "toncoin" ? pay.nano : 0n, bounce: false })
      : internal({
          to: pay.jettonWallet,
          value: pay.gasNano,
          // A failing jetton wallet bounces the Toncoin back instead of keeping it.
          bounce: true,
          body: jettonTransferBody({
            queryId: pay.queryId,
            amount: pay.raw,
            destination: pay.recipient,
            responseDestination: pay.responseTo ?? sender.wallet.address,
            forwardTonAmount: pay.forwardNano,
          }),
        });
  const body = sender.wallet.createTransfer({
    seqno,
    secretKey: sender.keyPair.secretKey,
    messages: [message],
    // IGNORE_ERRORS keeps the seqno bump even if the send fails, so the message cannot be replayed.
    sendMode:
      (pay.kind === "toncoin-all" ? SendMode.CARRY_ALL_REMAINING_BALANCE : SendMode.PAY_GAS_SEPARATELY) |
      SendMode.IGNORE_ERRORS,
    timeout: validUntil,
  });
  const ext = external({
    to: sender.wallet.address,
    ...(seqno === 0 ? { init: sender.wallet.init } : {}),
    body,
  });
  const cell = beginCell().store(storeMessage(ext)).endCell();
  return { signature: cell.hash().toString("hex"), raw: cell.toBoc().toString("base64") };
}

export interface PreparedFacts {
  signature: string;
  /** The wallet that signed it (the treasury, or a deposit wallet being consolidated). */
  wallet: Address;
  seqno: number;
  validUntil: number;
}

/** Seqno and expiry read back from a prepared BOC (wallet v3/v4 body layout), e.g. after a restart. */
export function readPrepared(raw: string): PreparedFacts {
  const cell = Cell.fromBoc(Buffer.from(raw, "base64"))[0];
  if (!cell) throw new Error("empty BOC");
  const message = loadMessage(cell.beginParse());
  if (message.info.type !== "external-in") throw new Error("not an external message");
  const wallet = message.info.dest;
  const body = message.body.beginParse();
  body.skip(512 + 32); // signature, wallet id
  const validUntil = body.loadUint(32);
  const seqno = body.loadUint(32);
  return { signature: cell.hash().toString("hex"), wallet, seqno, validUntil };
}
