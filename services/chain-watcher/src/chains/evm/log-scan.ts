import { getAddress, type JsonRpcProvider, toQuantity } from "ethers";
import { z } from "zod";
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

/** The fields of an eth_getLogs entry the scan reads. */
const RawLog = z.object({
  address: z.string(),
  topics: z.array(z.string()),
  data: z.string(),
  blockNumber: z.string(),
  transactionHash: z.string(),
  logIndex: z.string(),
  removed: z.boolean().optional(),
});
type RawLog = z.infer<typeof RawLog>;
const RawLogs = z.array(RawLog);

/** The 20-byte address inside an indexed address topic, lowercase: compared without checksumming. */
const topicAddress = (topic: string): string => `0x${topic.slice(26).toLowerCase()}`;

/**
 * ERC-20 Transfer logs of `tokens` to any watched address inside `range`, oldest first, read with one
 * eth_getLogs call however many addresses are watched. The raw JSON-RPC answer is read directly:
 * checksumming every log's addresses (a keccak each) would cost more than fetching the logs, so only
 * the logs that match are checksummed, and a recipient is reported exactly as it was watched.
 */
export async function scanTransfers(
  provider: JsonRpcProvider,
  range: BlockRange,
  tokens: string[],
  watched: WatchedAddress[],
  decimalsOf: (token: string) => Promise<number>,
): Promise<ObservedTransfer[]> {
  if (tokens.length === 0 || watched.length === 0) return [];
  const wanted = new Map(watched.map((w) => [w.address.toLowerCase(), w.address]));
  const toTopics = wanted.size <= MAX_TO_TOPICS ? [...wanted.keys()].map(addressTopic) : null;
  const logs = RawLogs.parse(
    await provider.send("eth_getLogs", [
      {
        address: tokens,
        topics: [TRANSFER_TOPIC, null, toTopics],
        fromBlock: toQuantity(range.from),
        toBlock: toQuantity(range.to),
      },
    ]),
  );
  const mine = logs
    // ERC-721 shares the Transfer topic but indexes the token id (4 topics); only ERC-20 has 3.
    .filter((log) => !log.removed && log.topics.length === 3 && log.data.length === 66)
    .map((log) => ({ log, to: wanted.get(topicAddress(log.topics[2]!)) }))
    .filter((m): m is { log: RawLog; to: string } => m.to !== undefined)
    .map(({ log, to }) => ({ log, to, block: Number(log.blockNumber), index: Number(log.logIndex) }));
  mine.sort((a, b) => a.block - b.block || a.index - b.index);
  const mints = new Map<string, { mint: string; decimals: number }>();
  for (const token of new Set(mine.map((m) => m.log.address.toLowerCase()))) {
    const mint = getAddress(token);
    mints.set(token, { mint, decimals: await decimalsOf(mint) });
  }
  return mine.map(({ log, to, index }) => {
    const { mint, decimals } = mints.get(log.address.toLowerCase())!;
    return {
      txId: log.transactionHash,
      index,
      to,
      sender: getAddress(topicAddress(log.topics[1]!)),
      mint,
      amount: formatTokenAmount(BigInt(log.data), decimals),
    };
  });
}
