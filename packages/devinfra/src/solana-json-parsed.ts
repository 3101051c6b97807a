import type { Address } from "@solana/kit";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, unpackAccount, unpackMint } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import type { LiteSVM } from "litesvm";

/**
 * The `jsonParsed` rendering a Solana node gives a transaction, for what a LiteSVM-backed node needs:
 * SPL Token `transfer` and `transferChecked` are parsed (the instructions a deposit watcher reads),
 * every other instruction stays partially decoded (programId, accounts, base58 data) — the form a
 * node uses for programs it has no parser for. Token balances are read from the accounts themselves.
 */

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM_ID.toBase58(), TOKEN_2022_PROGRAM_ID.toBase58()]);
const TRANSFER = 3;
const TRANSFER_CHECKED = 12;

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

function uiAmountString(raw: bigint, decimals: number): string {
  const digits = raw.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

export function uiTokenAmount(raw: bigint, decimals: number): UiTokenAmount {
  const text = uiAmountString(raw, decimals);
  return { amount: raw.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

function accountOf(svm: LiteSVM, address: string) {
  const account = svm.getAccount(address as Address);
  if (!account.exists) return undefined;
  return {
    data: Buffer.from(account.data),
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: new PublicKey(account.programAddress),
  };
}

export const lamportsOf = (svm: LiteSVM, keys: string[]): number[] =>
  keys.map((k) => accountOf(svm, k)?.lamports ?? 0);

/** Pre/post token balances of the listed accounts that are SPL token accounts at this moment. */
export function tokenBalances(svm: LiteSVM, keys: string[]): TokenBalanceJson[] {
  const out: TokenBalanceJson[] = [];
  keys.forEach((key, accountIndex) => {
    const info = accountOf(svm, key);
    if (!info || !TOKEN_PROGRAMS.has(info.owner.toBase58())) return;
    let token: ReturnType<typeof unpackAccount>;
    try {
      token = unpackAccount(new PublicKey(key), info, info.owner);
    } catch {
      return; // a mint or another token-program account, not a token account
    }
    const mintInfo = accountOf(svm, token.mint.toBase58());
    if (!mintInfo) return;
    const { decimals } = unpackMint(token.mint, mintInfo, mintInfo.owner);
    out.push({
      accountIndex,
      mint: token.mint.toBase58(),
      owner: token.owner.toBase58(),
      programId: info.owner.toBase58(),
      uiTokenAmount: uiTokenAmount(token.amount, decimals),
    });
  });
  return out;
}

/** One instruction as jsonParsed shows it; `accounts` are already resolved to base58 keys. */
export function parsedInstruction(programId: string, accounts: string[], data: Uint8Array): object {
  const raw = { programId, accounts, data: bs58.encode(data) };
  if (!TOKEN_PROGRAMS.has(programId) || data.length < 9) return raw;
  const view = Buffer.from(data);
  const amount = view.readBigUInt64LE(1);
  const program = programId === TOKEN_PROGRAM_ID.toBase58() ? "spl-token" : "spl-token-2022";
  // Single authority: the signer follows the fixed accounts; more accounts mean a multisig and its signers.
  const authority = (at: number) =>
    accounts.length > at + 1
      ? { multisigAuthority: accounts[at], signers: accounts.slice(at + 1) }
      : { authority: accounts[at] };
  if (data[0] === TRANSFER && accounts.length >= 3) {
    const [source, destination] = accounts;
    const info = { source, destination, amount: amount.toString(), ...authority(2) };
    return { program, programId, parsed: { type: "transfer", info } };
  }
  if (data[0] === TRANSFER_CHECKED && data.length >= 10 && accounts.length >= 4) {
    const [source, mint, destination] = accounts;
    const tokenAmount = uiTokenAmount(amount, view.readUInt8(9));
    const info = { source, mint, destination, tokenAmount, ...authority(3) };
    return { program, programId, parsed: { type: "transferChecked", info } };
  }
  return raw;
}
