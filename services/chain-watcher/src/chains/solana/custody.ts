import { unpackAccount } from "@solana/spl-token";
import { type Finality, type Keypair, PublicKey } from "@solana/web3.js";
import type { Custody, PreparedTransfer, Rescanner, WatchedAddress } from "../adapter.ts";
import { TransferRejected } from "../errors.ts";
import { formatUnits, parseUnits } from "../shared/units.ts";
import { buildTokenTransfer } from "./delivery.ts";
import type { WatchedTokenAccount } from "./parse-transfers.ts";
import type { SolanaRpc } from "./rpc.ts";
import { observed, type ScanOptions, scanSlotRange } from "./watch.ts";

const LAMPORTS_DECIMALS = 9;
/** Slots one reindex may cover: about a day at 400 ms a slot. */
export const SOLANA_REINDEX_MAX_SLOTS = 216_000n;

export interface SolanaCustodyDeps {
  rpc: SolanaRpc;
  commitment: Finality;
  treasury: Keypair;
  tokenProgramId: PublicKey;
  depositKeypair: (index: number) => Keypair;
  ataOf: (owner: PublicKey, mint: PublicKey) => PublicKey;
  tokenDecimals: (mint: string) => Promise<number>;
  /** Remembers a prepared transaction's blockhash, so its expiry can be told (as for deliveries). */
  remember: (prepared: PreparedTransfer, blockhash: string) => void;
  priorityFeeMicroLamports: number;
}

/**
 * The treasury's balances and consolidation on Solana: the deposit address signs only as the tokens'
 * owner, the treasury pays the fee in the same transaction, so a deposit address never needs SOL.
 */
export function createSolanaCustody(deps: SolanaCustodyDeps): Custody {
  const { rpc, commitment, treasury, tokenProgramId } = deps;
  async function tokenRaw(owner: PublicKey, mint: string): Promise<bigint> {
    const ata = deps.ataOf(owner, new PublicKey(mint));
    const info = await rpc.getAccountInfo(ata, commitment);
    return info ? unpackAccount(ata, info, tokenProgramId).amount : 0n;
  }
  return {
    treasuryAddress: treasury.publicKey.toBase58(),
    nativeSymbol: "SOL",
    async nativeBalance(owner) {
      const info = await rpc.getAccountInfo(new PublicKey(owner), commitment);
      return formatUnits(BigInt(info?.lamports ?? 0), LAMPORTS_DECIMALS);
    },
    async tokenBalance(owner, mint) {
      return formatUnits(await tokenRaw(new PublicKey(owner), mint), await deps.tokenDecimals(mint));
    },
    sweepGasShortfall: async () => "0",
    async prepareNative() {
      throw new TransferRejected("Solana deposit addresses need no gas: the treasury pays the fee");
    },
    async prepareSweep(req) {
      const owner = deps.depositKeypair(req.index);
      const decimals = await deps.tokenDecimals(req.mint);
      const raw = parseUnits(req.amount, decimals);
      if ((await tokenRaw(owner.publicKey, req.mint)) < raw)
        throw new TransferRejected(
          `deposit address ${owner.publicKey.toBase58()} holds less than ${req.amount}`,
        );
      const { blockhash } = await rpc.getLatestBlockhash(commitment);
      const signed = buildTokenTransfer({
        treasury,
        owner,
        mint: new PublicKey(req.mint),
        recipient: treasury.publicKey,
        raw,
        decimals,
        blockhash,
        tokenProgramId,
        priorityFeeMicroLamports: deps.priorityFeeMicroLamports,
      });
      deps.remember(signed, blockhash);
      return signed;
    },
  };
}

/** Reindex on Solana: each watched token account's signatures in a slot range, read as the poll reads them. */
export function createSolanaRescanner(deps: {
  rpc: SolanaRpc;
  commitment: Finality;
  targetsOf: (watched: WatchedAddress[]) => WatchedTokenAccount[];
  scan: (mints: string[]) => Promise<ScanOptions>;
}): Rescanner {
  return {
    unit: "slot",
    maxSpan: SOLANA_REINDEX_MAX_SLOTS,
    head: async () => BigInt(await deps.rpc.getSlot(deps.commitment)),
    async rescan(range, watched) {
      const targets = deps.targetsOf(watched);
      const opts = await deps.scan(targets.map((t) => t.mint));
      const out = [];
      for (const target of targets) {
        out.push(...(await scanSlotRange(deps.rpc, target, range, opts)).map(observed));
      }
      return out;
    },
  };
}
