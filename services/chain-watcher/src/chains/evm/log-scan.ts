import { dataSlice, getAddress, type JsonRpcProvider, type Log } from "ethers";
import type { ObservedTransfer, WatchedAddress } from "../adapter.ts";
import { addressTopic, formatTokenAmount, TRANSFER_TOPIC } from "./erc20.ts";

/** How many `to` topics one eth_getLogs call ORs together; public endpoints cap filter sizes. */
const TOPICS_PER_CALL = 200;

export interface BlockRange {
  from: number;
  to: number;
}

/**
 * Where the next scan goes: from just after the cursor (a block number already fully scanned) up to
 * the safe head (newest block with `confirmations` confirmations), in at most `chunk` blocks. Without a
 * cursor (first start) it begins `lookback` blocks behind the safe head. `undefined`: nothing to scan yet.
 */
export function nextRange(
  cursor: string | null,
  latest: number,
  confirmations: number,
  chunk: number,
  lookback: number,
): BlockRange | undefined {
  const safeHead = latest - confirmations + 1;
  const from = cursor === null ? Math.max(0, safeHead - lookback + 1) : Number(cursor) + 1;
  if (!Number.isSafeInteger(from) || from < 0) throw new Error(`bad EVM cursor: ${cursor}`);
  if (safeHead < from) return undefined;
  return { from, to: Math.min(safeHead, from + Math.max(1, chunk) - 1) };
}

/** ERC-20 Transfer logs of `tokens` to any watched address inside `range`, oldest first. */
export async function scanTransfers(
  provider: JsonRpcProvider,
  range: BlockRange,
  tokens: string[],
  watched: WatchedAddress[],
  decimalsOf: (token: string) => Promise<number>,
): Promise<ObservedTransfer[]> {
  if (tokens.length === 0 || watched.length === 0) return [];
  const logs: Log[] = [];
  for (let i = 0; i < watched.length; i += TOPICS_PER_CALL) {
    const toTopics = watched.slice(i, i + TOPICS_PER_CALL).map((w) => addressTopic(w.address));
    logs.push(
      ...(await provider.getLogs({
        address: tokens,
        topics: [TRANSFER_TOPIC, null, toTopics],
        fromBlock: range.from,
        toBlock: range.to,
      })),
    );
  }
  logs.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
  const out: ObservedTransfer[] = [];
  for (const log of logs) {
    // ERC-721 shares the Transfer topic but indexes the token id (4 topics); only ERC-20 has 3.
    if (log.removed || log.topics.length !== 3 || log.data.length !== 66) continue;
    const mint = getAddress(log.address);
    out.push({
      txId: log.transactionHash,
      index: log.index,
      to: getAddress(dataSlice(log.topics[2]!, 12)),
      sender: getAddress(dataSlice(log.topics[1]!, 12)),
      mint,
      amount: formatTokenAmount(BigInt(log.data), await decimalsOf(mint)),
    });
  }
  return out;
}
