import {
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount,
  unpackMint,
} from "@solana/spl-token";
import { type Finality, type Keypair, PublicKey } from "@solana/web3.js";
import type {
  ChainAdapter,
  ObservedTransfer,
  PollResult,
  PreparedTransfer,
  TransferRequest,
  TransferStatus,
  WatchedAddress,
} from "../adapter.ts";
import { TransferRejected } from "../errors.ts";
import { seedFromMnemonic } from "../shared/seed.ts";
import { formatUnits, parseUnits } from "../shared/units.ts";
import { createSolanaCustody, createSolanaRescanner } from "./custody.ts";
import { buildTokenTransfer, preparedBlockhash, TOKEN_ACCOUNT_SIZE } from "./delivery.ts";
import {
  deriveSolanaKeypairFromSeed,
  SOLANA_TREASURY_PATH,
  solanaAddressFromSeed,
  solanaKeypairAt,
} from "./derive.ts";
import type { WatchedTokenAccount } from "./parse-transfers.ts";
import { type SolanaRpc, solanaRpc } from "./rpc.ts";
import { decodeCursor, observed, type ScanOptions, scanTokenAccount } from "./watch.ts";

export interface SolanaAdapterOptions {
  mnemonic: string;
  /** An endpoint URL, or a client (tests inject LiteSVM- or fixture-backed ones). */
  rpc: string | SolanaRpc;
  /** Settlement mint (USDC), watched for every address besides the mints of its allocation. */
  stablecoin?: string;
  /** `finalized` (default) is ~32 confirmed blocks and cannot be rolled back. */
  commitment?: Finality;
  /** CONFIRMATIONS_SOLANA: the depth asked for, mapped to a commitment when none is given. */
  confirmations?: number;
  /** Deliveries come from here; defaults to the mnemonic's treasury path. */
  treasury?: Keypair;
  tokenProgramId?: PublicKey;
  priorityFeeMicroLamports?: number;
}

const LAMPORTS_DECIMALS = 9;
/** A block is rooted (finalized) once 31 confirmed blocks are built on it: 32 confirmations. */
const FINALIZED_DEPTH = 32;

/**
 * Solana nodes answer by commitment level, not by depth: fewer confirmations than finality asks for
 * the `confirmed` level (voted by a supermajority), anything deeper needs `finalized`.
 */
export function commitmentFor(confirmations: number | undefined): Finality {
  return confirmations !== undefined && confirmations < FINALIZED_DEPTH ? "confirmed" : "finalized";
}

const TOKEN_PROGRAMS = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID];
/** Node answers meaning the identical transaction already landed: a re-broadcast, not a failure. */
const ALREADY_PROCESSED = /already (been )?processed|AlreadyProcessed/i;

function publicKey(value: string, what: string): PublicKey {
  try {
    return new PublicKey(value);
  } catch {
    throw new TransferRejected(`${what} is not a Solana address: ${value}`);
  }
}

export function createSolanaAdapter(opts: SolanaAdapterOptions): ChainAdapter & { treasuryAddress: string } {
  const seed = seedFromMnemonic(opts.mnemonic);
  const commitment: Finality = opts.commitment ?? commitmentFor(opts.confirmations);
  const rpc = typeof opts.rpc === "string" ? solanaRpc(opts.rpc, commitment) : opts.rpc;
  const treasury = opts.treasury ?? solanaKeypairAt(seed, SOLANA_TREASURY_PATH);
  const tokenProgramId = opts.tokenProgramId ?? TOKEN_PROGRAM_ID;
  const decimalsCache = new Map<string, Promise<number>>();
  const knownDecimals = new Map<string, number>();
  // Blockhash per broadcast signature, so a dropped transaction can be declared failed once it
  // expired. Rebuilt by broadcast() after a restart, which is when the caller re-sends pending ones.
  const blockhashes = new Map<string, string>();

  const ataOf = (owner: PublicKey, mint: PublicKey) =>
    getAssociatedTokenAddressSync(mint, owner, true, tokenProgramId);

  function tokenDecimals(mint: string): Promise<number> {
    let cached = decimalsCache.get(mint);
    if (!cached) {
      cached = (async () => {
        const key = new PublicKey(mint);
        const info = await rpc.getAccountInfo(key, commitment);
        const decimals = unpackMint(key, info, info?.owner).decimals;
        knownDecimals.set(mint, decimals);
        return decimals;
      })();
      decimalsCache.set(mint, cached);
      // A failed read is forgotten so the next call retries.
      cached.catch(() => decimalsCache.delete(mint));
    }
    return cached;
  }

  function targetsOf(watched: WatchedAddress[]): WatchedTokenAccount[] {
    const byAta = new Map<string, WatchedTokenAccount>();
    for (const w of watched) {
      const mints = new Set(w.mints);
      if (opts.stablecoin) mints.add(opts.stablecoin);
      for (const mint of mints) {
        const ata = ataOf(new PublicKey(w.address), new PublicKey(mint)).toBase58();
        byAta.set(ata, { owner: w.address, mint, ata });
      }
    }
    return [...byAta.values()];
  }

  /** Scan settings, once the decimals of every mint scanned are known. */
  async function scanOptions(mints: string[]): Promise<ScanOptions> {
    for (const mint of new Set(mints)) await tokenDecimals(mint);
    return { commitment, pageSize: 1000, batchSize: 25, decimalsOf: (mint) => knownDecimals.get(mint) };
  }

  async function poll(cursor: string | null, watched: WatchedAddress[]): Promise<PollResult> {
    const state = decodeCursor(cursor);
    const targets = targetsOf(watched);
    const opts = await scanOptions(targets.map((t) => t.mint));
    const transfers: ObservedTransfer[] = [];
    for (const target of targets) {
      const scan = await scanTokenAccount(rpc, target, state[target.ata], opts);
      transfers.push(...scan.transfers.map(observed));
      if (scan.last) state[target.ata] = scan.last;
    }
    // Accounts no longer watched keep their entry, so watching them again does not replay history.
    return { transfers, cursor: JSON.stringify(state) };
  }

  async function prepareTransfer(req: TransferRequest): Promise<PreparedTransfer> {
    const mint = publicKey(req.mint, "mint");
    const recipient = publicKey(req.recipient, "recipient");
    const recipientInfo = await rpc.getAccountInfo(recipient, commitment);
    // A token account pasted as the recipient would get an ATA nobody can sign for: refuse it.
    if (recipientInfo && TOKEN_PROGRAMS.some((program) => program.equals(recipientInfo.owner))) {
      throw new TransferRejected(`recipient ${req.recipient} is a token account or mint, not a wallet`);
    }
    const decimals = await tokenDecimals(req.mint);
    let raw: bigint;
    try {
      raw = parseUnits(req.amount, decimals);
    } catch (err) {
      throw new TransferRejected((err as Error).message);
    }
    if (raw <= 0n) throw new TransferRejected("amount must be positive");
    const source = ataOf(treasury.publicKey, mint);
    const sourceInfo = await rpc.getAccountInfo(source, commitment);
    const balance = sourceInfo ? unpackAccount(source, sourceInfo, tokenProgramId).amount : 0n;
    if (balance < raw)
      throw new TransferRejected(`treasury holds ${formatUnits(balance, decimals)} of ${req.mint}`);
    const { blockhash } = await rpc.getLatestBlockhash(commitment);
    const signed = buildTokenTransfer({
      treasury,
      mint,
      recipient,
      raw,
      decimals,
      blockhash,
      tokenProgramId,
      priorityFeeMicroLamports: opts.priorityFeeMicroLamports ?? 0,
    });
    blockhashes.set(signed.signature, blockhash);
    return signed;
  }

  async function broadcast(prepared: PreparedTransfer): Promise<void> {
    const blockhash = preparedBlockhash(prepared.raw);
    if (blockhash) blockhashes.set(prepared.signature, blockhash);
    try {
      // Preflight would reject a re-broadcast of a landed transaction; the signature dedupes anyway.
      await rpc.sendRawTransaction(Buffer.from(prepared.raw, "base64"), { skipPreflight: true });
    } catch (err) {
      if (!ALREADY_PROCESSED.test(String((err as Error).message))) throw err;
    }
  }

  async function lookup(signature: string): Promise<TransferStatus | undefined> {
    const { value } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true });
    const status = value[0];
    if (!status) return undefined;
    if (status.err !== null) return "failed";
    const level = status.confirmationStatus;
    const done = level === "finalized" || (commitment === "confirmed" && level === "confirmed");
    return done ? "confirmed" : "pending";
  }

  async function transferStatus(signature: string): Promise<TransferStatus> {
    const found = await lookup(signature);
    if (found) return found;
    const blockhash = blockhashes.get(signature);
    if (!blockhash) return "pending";
    // Expired at the finalized bank means no future block can include it; look once more after that,
    // so a transaction that landed just before expiry is not mistaken for a dropped one.
    const valid = await rpc.isBlockhashValid(blockhash, { commitment: "finalized" });
    if (valid.value) return "pending";
    return (await lookup(signature)) ?? "failed";
  }

  async function recipientSetupCost(recipient: string | null, mint: string): Promise<string> {
    if (recipient !== null) {
      const ata = ataOf(publicKey(recipient, "recipient"), publicKey(mint, "mint"));
      if (await rpc.getAccountInfo(ata, commitment)) return "0";
    }
    const lamports = await rpc.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_SIZE, commitment);
    return formatUnits(BigInt(lamports), LAMPORTS_DECIMALS);
  }

  return {
    chain: "SOLANA",
    custody: createSolanaCustody({
      rpc,
      commitment,
      treasury,
      tokenProgramId,
      depositKeypair: (index) => deriveSolanaKeypairFromSeed(seed, index),
      ataOf,
      tokenDecimals,
      remember: (prepared, blockhash) => blockhashes.set(prepared.signature, blockhash),
      priorityFeeMicroLamports: opts.priorityFeeMicroLamports ?? 0,
    }),
    rescanner: createSolanaRescanner({ rpc, commitment, targetsOf, scan: scanOptions }),
    treasuryAddress: treasury.publicKey.toBase58(),
    deriveAddress: (index) => solanaAddressFromSeed(seed, index),
    poll,
    prepareTransfer,
    broadcast,
    transferStatus,
    tokenDecimals,
    recipientSetupCost,
  };
}
