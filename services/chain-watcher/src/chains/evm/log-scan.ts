import { dataSlice, getAddress, type JsonRpcProvider, type Log } from "ethers";
import type { ObservedTransfer, WatchedAddress } from "../adapter.ts";
import { addressTopic, formatTokenAmount, TRANSFER_TOPIC } from "./erc20.ts";

/**
 * Up to this many watched addresses go into the eth_getLogs filter as an OR-list of `to` topics; above
 * it the filter names only the token contracts and the logs are matched locally. Nodes cap topic lists
 * at different sizes (some at a few dozen), so a large list would be refused or split into many calls —
 * either way the number of calls would grow with the watch list. Matching locally keeps it at one.
 */
export const MAX_TO_TOPICS = 50;

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

/** The 20-byte address inside an indexed address topic, lowercase: compared without checksumming. */
const topicAddress = (topic: string): string => dataSlice(topic, 12).toLowerCase();

/**
 * ERC-20 Transfer logs of `tokens` to any watched address inside `range`, oldest first, read with one
 * eth_getLogs call however many addresses are watched.
 */
export async function scanTransfers(
  provider: JsonRpcProvider,
  range: BlockRange,
  tokens: string[],
  watched: WatchedAddress[],
  decimalsOf: (token: string) => Promise<number>,
): Promise<ObservedTransfer[]> {
  if (tokens.length === 0 || watched.length === 0) return [];
  const wanted = new Set(watched.map((w) => w.address.toLowerCase()));
  const toTopics = wanted.size <= MAX_TO_TOPICS ? [...wanted].map(addressTopic) : null;
  const logs: Log[] = await provider.getLogs({
    address: tokens,
    topics: [TRANSFER_TOPIC, null, toTopics],
    fromBlock: range.from,
    toBlock: range.to,
  });
  // ERC-721 shares the Transfer topic but indexes the token id (4 topics); only ERC-20 has 3.
  const mine = logs.filter(
    (log) =>
      !log.removed &&
      log.topics.length === 3 &&
      log.data.length === 66 &&
      wanted.has(topicAddress(log.topics[2]!)),
  );
  mine.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
  const decimals = new Map<string, number>();
  for (const mint of new Set(mine.map((log) => getAddress(log.address)))) {
    decimals.set(mint, await decimalsOf(mint));
  }
  return mine.map((log) => {
    const mint = getAddress(log.address);
    return {
      txId: log.transactionHash,
      index: log.index,
      to: getAddress(topicAddress(log.topics[2]!)),
      sender: getAddress(topicAddress(log.topics[1]!)),
      mint,
      amount: formatTokenAmount(BigInt(log.data), decimals.get(mint)!),
    };
  });
}
