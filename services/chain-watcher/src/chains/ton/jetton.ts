import { createHash } from "node:crypto";
import { type Address, beginCell, type Cell, Dictionary, type Slice } from "@ton/core";
import type { TonRpc } from "./rpc.ts";

/** TEP-74 operation codes. */
export const OP = {
  transfer: 0x0f8a7ea5,
  transferNotification: 0x7362d09c,
  internalTransfer: 0x178d4519,
  excesses: 0xd53276db,
  comment: 0,
} as const;

/** The jetton wallet `minter` assigns to `owner` (get_wallet_address). */
export async function jettonWalletOf(rpc: TonRpc, minter: Address, owner: Address): Promise<Address> {
  const { stack } = await rpc.runMethod(minter, "get_wallet_address", [
    { type: "slice", cell: beginCell().storeAddress(owner).endCell() },
  ]);
  return stack.readAddress();
}

/** The balance field of get_wallet_data, in base units; 0 for a wallet that does not exist yet. */
export async function jettonBalance(rpc: TonRpc, jettonWallet: Address): Promise<bigint> {
  if (!(await rpc.isContractDeployed(jettonWallet))) return 0n;
  const { stack } = await rpc.runMethod(jettonWallet, "get_wallet_data");
  return stack.readBigNumber();
}

export interface JettonTransferBody {
  queryId: bigint;
  amount: bigint;
  destination: Address;
  responseDestination: Address;
  /** Toncoin forwarded with the notification to the recipient; > 0 or no notification is sent. */
  forwardTonAmount: bigint;
}

/** TEP-74 `transfer` to the sender's own jetton wallet, with no custom or forward payload. */
export function jettonTransferBody(t: JettonTransferBody): Cell {
  return beginCell()
    .storeUint(OP.transfer, 32)
    .storeUint(t.queryId, 64)
    .storeCoins(t.amount)
    .storeAddress(t.destination)
    .storeAddress(t.responseDestination)
    .storeMaybeRef(null)
    .storeCoins(t.forwardTonAmount)
    .storeBit(false)
    .endCell();
}

export interface TransferNotification {
  queryId: bigint;
  amount: bigint;
  sender: Address;
}

/** A `transfer_notification` body after its op code; undefined when malformed. */
export function readTransferNotification(body: Slice): TransferNotification | undefined {
  try {
    const queryId = body.loadUintBig(64);
    const amount = body.loadCoins();
    const sender = body.loadAddress();
    return { queryId, amount, sender };
  } catch {
    return undefined;
  }
}

const ONCHAIN_CONTENT = 0x00;
/** TEP-64: an on-chain metadata dictionary without `decimals` means 9. */
const DEFAULT_JETTON_DECIMALS = 9;

/**
 * Decimals from TEP-64 on-chain jetton content (a dictionary keyed by sha256 of the field name, values
 * in snake format); undefined for off-chain content, which would need an HTTP fetch we do not make.
 */
export function onchainDecimals(content: Cell): number | undefined {
  const slice = content.beginParse();
  if (slice.remainingBits < 8 || slice.loadUint(8) !== ONCHAIN_CONTENT) return undefined;
  const dict = slice.loadDict(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  const entry = dict.get(createHash("sha256").update("decimals").digest());
  if (!entry) return DEFAULT_JETTON_DECIMALS;
  const value = entry.beginParse();
  if (value.remainingBits >= 8 && value.preloadUint(8) === 0) value.skip(8); // snake prefix
  const decimals = Number.parseInt(value.loadStringTail(), 10);
  return Number.isInteger(decimals) && decimals >= 0 && decimals <= 255 ? decimals : undefined;
}

/** A jetton master's decimals when its metadata is on-chain (get_jetton_data's content cell). */
export async function readJettonDecimals(rpc: TonRpc, minter: Address): Promise<number | undefined> {
  const { stack } = await rpc.runMethod(minter, "get_jetton_data");
  stack.skip(3); // total_supply, mintable, admin
  return onchainDecimals(stack.readCell());
}
