import type { Address, Transaction } from "@ton/core";
import type { TransferStatus } from "../adapter.ts";
import { messageHash } from "./delivery.ts";
import { OP } from "./jetton.ts";
import type { TonRpc } from "./rpc.ts";

const PAGE = 50;

/**
 * Newest-first walk over `address`'s transactions down to unix time `notBefore`, returning the first
 * that `match` accepts. Bounded by time rather than count, so a busy treasury cannot push a landed
 * transfer out of view and have it mistaken for a lost one.
 */
async function findTransaction(
  rpc: TonRpc,
  address: Address,
  notBefore: number,
  match: (tx: Transaction) => boolean,
): Promise<Transaction | undefined> {
  let from: { lt: string; hash: string } | undefined;
  for (;;) {
    const page = await rpc.getTransactions(address, { limit: PAGE, archival: true, ...(from ?? {}) });
    for (const tx of page) {
      if (tx.now < notBefore) return undefined;
      if (match(tx)) return tx;
    }
    const oldest = page[page.length - 1];
    if (!oldest || page.length < PAGE) return undefined;
    from = { lt: oldest.lt.toString(), hash: oldest.hash().toString("base64") };
  }
}

export function findExternal(rpc: TonRpc, wallet: Address, signature: string, notBefore: number) {
  return findTransaction(
    rpc,
    wallet,
    notBefore,
    (tx) => tx.inMessage?.info.type === "external-in" && messageHash(tx.inMessage) === signature,
  );
}

/** Whether a transaction ran its code to success and carried out every action it asked for. */
function succeeded(tx: Transaction): boolean {
  const d = tx.description;
  if (d.type !== "generic" || d.aborted) return false;
  if (d.computePhase.type !== "vm" || !d.computePhase.success) return false;
  return d.actionPhase?.success ?? true;
}

/**
 * The outcome of the treasury's transaction for a delivery. The wallet ignores send errors (so its
 * seqno always moves), hence "no outbound message" means the payment did not leave. A jetton payment
 * is only done once the treasury's jetton wallet accepted the request; if it refused, the request
 * bounces and the recipient got nothing.
 */
export async function deliveryOutcome(rpc: TonRpc, walletTx: Transaction): Promise<TransferStatus> {
  if (!succeeded(walletTx)) return "failed";
  const out = walletTx.outMessages.get(0);
  if (out?.info.type !== "internal") return "failed";
  const body = out.body.beginParse();
  if (body.remainingBits < 96 || body.loadUint(32) !== OP.transfer) return "confirmed";
  const queryId = body.loadUintBig(64);
  const treasury = out.info.src;
  const jettonWallet = out.info.dest;
  const jettonTx = await findTransaction(rpc, jettonWallet, walletTx.now, (tx) => {
    const msg = tx.inMessage;
    if (msg?.info.type !== "internal" || !msg.info.src.equals(treasury)) return false;
    const s = msg.body.beginParse();
    return s.remainingBits >= 96 && s.loadUint(32) === OP.transfer && s.loadUintBig(64) === queryId;
  });
  if (!jettonTx) return "pending";
  return succeeded(jettonTx) ? "confirmed" : "failed";
}
