import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import type {
  ParsedInstruction,
  ParsedTransactionWithMeta,
  PartiallyDecodedInstruction,
  TokenBalance,
} from "@solana/web3.js";
import { z } from "zod";
import { formatUnits } from "../shared/units.ts";

/** A watched token account: the owner the service allocated and the ATA that holds `mint` for it. */
export interface WatchedTokenAccount {
  owner: string;
  mint: string;
  ata: string;
}

export interface SolanaTransfer {
  signature: string;
  /** Position in execution order, counting top-level and inner instructions alike. */
  index: number;
  owner: string;
  mint: string;
  amount: string;
  sender: string;
}

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM_ID.toBase58(), TOKEN_2022_PROGRAM_ID.toBase58()]);

// `parsed` is untyped in web3.js: these are the jsonParsed shapes of the two instructions we count.
const TransferInfo = z.object({
  source: z.string(),
  destination: z.string(),
  amount: z.string().regex(/^\d+$/),
  authority: z.string().optional(),
  multisigAuthority: z.string().optional(),
});
const TransferCheckedInfo = z.object({
  source: z.string(),
  destination: z.string(),
  mint: z.string(),
  tokenAmount: z.object({ amount: z.string().regex(/^\d+$/), decimals: z.number().int().min(0) }),
  authority: z.string().optional(),
  multisigAuthority: z.string().optional(),
});
const ParsedTokenInstruction = z.object({ type: z.string(), info: z.unknown() });

type AnyInstruction = ParsedInstruction | PartiallyDecodedInstruction;

/** Top-level and inner instructions flattened in the order the runtime executed them. */
function executionOrder(tx: ParsedTransactionWithMeta): AnyInstruction[] {
  const inner = new Map<number, AnyInstruction[]>();
  for (const group of tx.meta?.innerInstructions ?? []) inner.set(group.index, group.instructions);
  return tx.transaction.message.instructions.flatMap((ix, i) => [ix, ...(inner.get(i) ?? [])]);
}

function tokenBalanceOf(tx: ParsedTransactionWithMeta, account: string): TokenBalance | undefined {
  const keys = tx.transaction.message.accountKeys;
  const idx = keys.findIndex((k) => k.pubkey.toBase58() === account);
  if (idx < 0) return undefined;
  const match = (b: TokenBalance) => b.accountIndex === idx;
  return tx.meta?.postTokenBalances?.find(match) ?? tx.meta?.preTokenBalances?.find(match);
}

/**
 * SPL `transfer`/`transferChecked` instructions of a successful transaction whose destination is one of
 * `watched` (keyed by ATA). `decimalsOf` answers for plain `transfer`, which carries no decimals, when the
 * token balances do not. A failed transaction moved nothing, so it yields nothing.
 */
export function parseSolanaTransfers(
  signature: string,
  tx: ParsedTransactionWithMeta,
  watched: ReadonlyMap<string, WatchedTokenAccount>,
  decimalsOf: (mint: string) => number | undefined,
): SolanaTransfer[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const out: SolanaTransfer[] = [];
  executionOrder(tx).forEach((ix, index) => {
    if (!("parsed" in ix) || !TOKEN_PROGRAMS.has(ix.programId.toBase58())) return;
    const parsed = ParsedTokenInstruction.safeParse(ix.parsed);
    if (!parsed.success) return;
    let transfer: {
      source: string;
      destination: string;
      raw: bigint;
      decimals: number | undefined;
      mint?: string;
    };
    let authority: string | undefined;
    if (parsed.data.type === "transferChecked") {
      const info = TransferCheckedInfo.safeParse(parsed.data.info);
      if (!info.success) return;
      const { source, destination, mint, tokenAmount } = info.data;
      transfer = {
        source,
        destination,
        mint,
        raw: BigInt(tokenAmount.amount),
        decimals: tokenAmount.decimals,
      };
      authority = info.data.authority ?? info.data.multisigAuthority;
    } else if (parsed.data.type === "transfer") {
      const info = TransferInfo.safeParse(parsed.data.info);
      if (!info.success) return;
      const { source, destination, amount } = info.data;
      transfer = { source, destination, raw: BigInt(amount), decimals: undefined };
      authority = info.data.authority ?? info.data.multisigAuthority;
    } else {
      return;
    }
    const target = watched.get(transfer.destination);
    if (!target) return;
    // An ATA only ever holds the mint it was derived for; a mismatch means this is not our account.
    if (transfer.mint !== undefined && transfer.mint !== target.mint) return;
    const destBalance = tokenBalanceOf(tx, transfer.destination);
    const decimals = transfer.decimals ?? destBalance?.uiTokenAmount.decimals ?? decimalsOf(target.mint);
    if (decimals === undefined) throw new Error(`unknown decimals for mint ${target.mint}`);
    // The source account's owner is the payer a person would name; the authority may be a delegate.
    const sender = tokenBalanceOf(tx, transfer.source)?.owner ?? authority ?? transfer.source;
    out.push({
      signature,
      index,
      owner: target.owner,
      mint: target.mint,
      amount: formatUnits(transfer.raw, decimals),
      sender,
    });
  });
  return out;
}
