import { TONCOIN_MINT } from "@ramp/contracts";
import { Address } from "@ton/core";
import type { Custody, ObservedTransfer, PreparedTransfer, Rescanner, WatchedAddress } from "../adapter.ts";
import { TransferRejected } from "../errors.ts";
import { formatUnits, parseUnits } from "../shared/units.ts";
import { buildTonTransfer } from "./delivery.ts";
import type { TonDerivedWallet } from "./derive.ts";
import { jettonBalance } from "./jetton.ts";
import { TONCOIN_DECIMALS, type WatchedJettonWallet } from "./parse-transfers.ts";
import type { TonRpc } from "./rpc.ts";
import { mergeWatched, scanTonRange } from "./watch.ts";

/** Toncoin a deposit wallet keeps for its own fees (its deployment and the transfer request) beyond the attached gas. */
const SWEEP_FEE_RESERVE_NANO = 30_000_000n;
/** Logical time one reindex may cover: roughly three days of mainnet. */
export const TON_REINDEX_MAX_LT = 100_000_000_000n;
/** TON has no confirmation depth to wait for: every logical time is final once seen. */
const NO_HEAD_LIMIT = 2n ** 64n - 1n;

export interface TonCustodyDeps {
  rpc: TonRpc;
  treasury: TonDerivedWallet;
  depositWallet: (index: number) => TonDerivedWallet;
  tokenDecimals: (mint: string) => Promise<number>;
  jettonWalletFor: (mint: string, owner: Address) => Promise<Address>;
  seqnoOf: (wallet: Address) => Promise<number>;
  /** Unix seconds a transaction prepared now stays valid until. */
  validUntil: () => number;
  /** Signs a payment from the treasury (the adapter's own delivery path). */
  payFromTreasury: (req: {
    requestId: string;
    mint: string;
    recipient: string;
    amount: string;
  }) => Promise<PreparedTransfer>;
  /** Remembers a prepared message's seqno and expiry, so its status can be told. */
  remember: (prepared: PreparedTransfer) => void;
  queryIdOf: (requestId: string) => bigint;
  gasNano: bigint;
  forwardNano: bigint;
}

/**
 * The treasury's balances and consolidation on TON: a deposit wallet (undeployed until it first sends)
 * is topped up with Toncoin from the treasury, then signs a jetton transfer to the treasury; its first
 * message deploys it. Unused gas returns to the treasury.
 */
export function createTonCustody(deps: TonCustodyDeps): Custody {
  const { rpc, treasury } = deps;
  const nano = (value: bigint) => formatUnits(value, TONCOIN_DECIMALS);
  const jettonsOf = async (owner: Address, mint: string) =>
    jettonBalance(rpc, await deps.jettonWalletFor(mint, owner));

  return {
    treasuryAddress: treasury.wallet.address.toRawString(),
    nativeSymbol: "TON",
    nativeBalance: async (owner) => nano(await rpc.getBalance(Address.parse(owner))),
    async tokenBalance(owner, mint) {
      if (mint === TONCOIN_MINT) return nano(await rpc.getBalance(Address.parse(owner)));
      return formatUnits(await jettonsOf(Address.parse(owner), mint), await deps.tokenDecimals(mint));
    },
    async sweepGasShortfall(owner, mint) {
      // Toncoin pays its own way out: the wallet's fees come from the balance it sends.
      if (mint === TONCOIN_MINT) return "0";
      const needed = deps.gasNano + SWEEP_FEE_RESERVE_NANO;
      const has = await rpc.getBalance(Address.parse(owner));
      return has >= needed ? "0" : nano(needed - has);
    },
    prepareNative: (req) => deps.payFromTreasury({ ...req, mint: TONCOIN_MINT }),
    async prepareSweep(req) {
      const from = deps.depositWallet(req.index);
      const owner = from.wallet.address;
      if (req.mint === TONCOIN_MINT) {
        // All of it, not `amount`: what the wallet keeps back would only pay storage until it is gone.
        const signed = buildTonTransfer(from, await deps.seqnoOf(owner), deps.validUntil(), {
          kind: "toncoin-all",
          recipient: treasury.wallet.address,
        });
        deps.remember(signed);
        return signed;
      }
      const raw = parseUnits(req.amount, await deps.tokenDecimals(req.mint));
      const jettonWallet = await deps.jettonWalletFor(req.mint, owner);
      if ((await jettonBalance(rpc, jettonWallet)) < raw)
        throw new TransferRejected(`deposit wallet ${owner.toRawString()} holds less than ${req.amount}`);
      const signed = buildTonTransfer(from, await deps.seqnoOf(owner), deps.validUntil(), {
        kind: "jetton",
        jettonWallet,
        recipient: treasury.wallet.address,
        raw,
        queryId: deps.queryIdOf(req.requestId),
        gasNano: deps.gasNano,
        forwardNano: deps.forwardNano,
        responseTo: treasury.wallet.address,
      });
      deps.remember(signed);
      return signed;
    },
  };
}

/** Reindex on TON: each watched wallet's transactions in a logical-time range, read as the poll reads them. */
export function createTonRescanner(deps: {
  rpc: TonRpc;
  stablecoin: string | undefined;
  jettonWalletsOf: (owner: Address, mints: Set<string>) => Promise<Map<string, WatchedJettonWallet>>;
}): Rescanner {
  return {
    unit: "lt",
    maxSpan: TON_REINDEX_MAX_LT,
    head: async () => NO_HEAD_LIMIT,
    async rescan(range, watched: WatchedAddress[]) {
      const out: ObservedTransfer[] = [];
      for (const wallet of mergeWatched(watched, deps.stablecoin)) {
        const own = await deps.jettonWalletsOf(wallet.owner, wallet.mints);
        for (const t of await scanTonRange(deps.rpc, wallet, range, own, 100)) {
          out.push({ txId: t.txId, index: 0, to: t.owner, mint: t.mint, amount: t.amount, sender: t.sender });
        }
      }
      return out;
    },
  };
}
