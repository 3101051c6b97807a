import { createHash } from "node:crypto";
import { TONCOIN_MINT } from "@ramp/contracts";
import { Address } from "@ton/core";
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
import { parseUnits } from "../shared/units.ts";
import { createTonCustody, createTonRescanner } from "./custody.ts";
import { buildTonTransfer, type PreparedFacts, readPrepared, type TonPayment } from "./delivery.ts";
import {
  deriveTonWalletFromSeed,
  TON_TREASURY_PATH,
  type TonDerivedWallet,
  tonAddressFromSeed,
  tonWalletAt,
} from "./derive.ts";
import { jettonBalance, jettonWalletOf, readJettonDecimals } from "./jetton.ts";
import { TONCOIN_DECIMALS, type WatchedJettonWallet } from "./parse-transfers.ts";
import { type TonRpc, tonRpc } from "./rpc.ts";
import { deliveryOutcome, findExternal } from "./status.ts";
import { decodeTonCursor, mergeWatched, rawTon, scanTonWallet } from "./watch.ts";

export interface TonAdapterOptions {
  mnemonic: string;
  /** A toncenter v2 endpoint URL, or a client (tests inject a @ton/sandbox-backed one). */
  rpc: string | TonRpc;
  apiKey?: string;
  /** Settlement jetton (USDT), watched for every address besides the mints of its allocation. */
  stablecoin?: { address: string; decimals: number };
  /** Decimals of other jettons the service may see, keyed by master address in any spelling. */
  jettonDecimals?: Record<string, number>;
  /** Deliveries come from here; defaults to the mnemonic's treasury path. */
  treasury?: TonDerivedWallet;
  /** How long a prepared transfer stays valid (wallet `valid_until`); default 300 s. */
  validitySeconds?: number;
  /** Toncoin attached to a jetton transfer for fees (excess returns); default 0.05 TON. */
  jettonGasNano?: bigint;
  /** Toncoin forwarded so the recipient's wallet gets a transfer_notification; default 1 nanoton. */
  forwardNano?: bigint;
  /** Unix seconds; tests pin it to the sandbox clock. */
  now?: () => number;
}

/** Past `valid_until` plus this, the chain has certainly settled whether the message ran. */
const EXPIRY_GRACE_SECONDS = 60;

/** A 64-bit query id from the request id, so the jetton transfer names the request on chain. */
function queryIdOf(requestId: string): bigint {
  return createHash("sha256").update(requestId).digest().readBigUInt64BE(0);
}

function address(value: string, what: string): Address {
  try {
    return Address.parse(value);
  } catch {
    throw new TransferRejected(`${what} is not a TON address: ${value}`);
  }
}

function amountOf(amount: string, decimals: number): bigint {
  let raw: bigint;
  try {
    raw = parseUnits(amount, decimals);
  } catch (err) {
    throw new TransferRejected((err as Error).message);
  }
  if (raw <= 0n) throw new TransferRejected("amount must be positive");
  return raw;
}

export function createTonAdapter(opts: TonAdapterOptions): ChainAdapter & { treasuryAddress: string } {
  const seed = seedFromMnemonic(opts.mnemonic);
  const rpc = typeof opts.rpc === "string" ? tonRpc(opts.rpc, opts.apiKey) : opts.rpc;
  const treasury = opts.treasury ?? tonWalletAt(seed, TON_TREASURY_PATH);
  const treasuryAddress = treasury.wallet.address;
  const validity = opts.validitySeconds ?? 300;
  const gasNano = opts.jettonGasNano ?? 50_000_000n;
  const forwardNano = opts.forwardNano ?? 1n;
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const decimals = new Map<string, number>([[TONCOIN_MINT, TONCOIN_DECIMALS]]);
  for (const [mint, d] of Object.entries(opts.jettonDecimals ?? {})) decimals.set(rawTon(mint), d);
  if (opts.stablecoin) decimals.set(rawTon(opts.stablecoin.address), opts.stablecoin.decimals);
  const jettonWallets = new Map<string, Promise<Address>>();
  // Seqno and expiry per signature; rebuilt by broadcast() after a restart.
  const prepared = new Map<string, PreparedFacts>();

  async function tokenDecimals(mint: string): Promise<number> {
    const key = rawTon(mint);
    const known = decimals.get(key);
    if (known !== undefined) return known;
    // Configuration first: jetton metadata is often off-chain (a URL) and then unreadable here.
    const onchain = await readJettonDecimals(rpc, Address.parse(key));
    if (onchain === undefined) throw new Error(`decimals of jetton ${mint} are not configured`);
    decimals.set(key, onchain);
    return onchain;
  }

  function jettonWalletFor(mint: string, owner: Address): Promise<Address> {
    const key = `${rawTon(mint)}|${owner.toRawString()}`;
    let cached = jettonWallets.get(key);
    if (!cached) {
      cached = jettonWalletOf(rpc, Address.parse(mint), owner);
      jettonWallets.set(key, cached);
      cached.catch(() => jettonWallets.delete(key));
    }
    return cached;
  }

  async function seqnoOf(wallet: Address): Promise<number> {
    if (!(await rpc.isContractDeployed(wallet))) return 0;
    return (await rpc.runMethod(wallet, "seqno")).stack.readNumber();
  }

  /** The genuine jetton wallets of `owner` for its watched jetton mints, keyed by raw address. */
  async function jettonWalletsOf(
    owner: Address,
    mints: Set<string>,
  ): Promise<Map<string, WatchedJettonWallet>> {
    const own = new Map<string, WatchedJettonWallet>();
    for (const mint of mints) {
      if (mint === TONCOIN_MINT) continue;
      const jw = await jettonWalletFor(mint, owner);
      own.set(jw.toRawString(), { mint, decimals: await tokenDecimals(mint) });
    }
    return own;
  }

  async function poll(cursor: string | null, watched: WatchedAddress[]): Promise<PollResult> {
    const state = decodeTonCursor(cursor);
    const transfers: ObservedTransfer[] = [];
    for (const wallet of mergeWatched(watched, opts.stablecoin?.address)) {
      const own = await jettonWalletsOf(wallet.owner, wallet.mints);
      const key = wallet.owner.toRawString();
      const scan = await scanTonWallet(rpc, wallet, state[key], own, 100);
      // One inbound message per TON transaction, so index 0 is unique with the transaction hash.
      for (const t of scan.transfers) {
        transfers.push({
          txId: t.txId,
          index: 0,
          to: t.owner,
          mint: t.mint,
          amount: t.amount,
          sender: t.sender,
        });
      }
      if (scan.lastLt) state[key] = scan.lastLt;
    }
    return { transfers, cursor: JSON.stringify(state) };
  }

  async function prepareTransfer(req: TransferRequest): Promise<PreparedTransfer> {
    const recipient = address(req.recipient, "recipient");
    const mint = req.mint === TONCOIN_MINT ? TONCOIN_MINT : address(req.mint, "mint").toRawString();
    const raw = amountOf(req.amount, await tokenDecimals(mint));
    let pay: TonPayment;
    if (mint === TONCOIN_MINT) {
      if ((await rpc.getBalance(treasuryAddress)) < raw)
        throw new TransferRejected("treasury Toncoin too low");
      pay = { kind: "toncoin", recipient, nano: raw };
    } else {
      const jettonWallet = await jettonWalletFor(mint, treasuryAddress);
      if ((await jettonBalance(rpc, jettonWallet)) < raw)
        throw new TransferRejected(`treasury ${mint} too low`);
      pay = {
        kind: "jetton",
        jettonWallet,
        recipient,
        raw,
        queryId: queryIdOf(req.requestId),
        gasNano,
        forwardNano,
      };
    }
    const out = buildTonTransfer(treasury, await seqnoOf(treasuryAddress), now() + validity, pay);
    prepared.set(out.signature, readPrepared(out.raw));
    return out;
  }

  async function broadcast(p: PreparedTransfer): Promise<void> {
    const facts = readPrepared(p.raw);
    prepared.set(facts.signature, facts);
    try {
      await rpc.sendFile(Buffer.from(p.raw, "base64"));
    } catch (err) {
      // The wallet refuses a seqno it already used: exactly what re-sending a landed message meets.
      // transferStatus tells whether it was this message or another that used the seqno.
      if ((await seqnoOf(facts.wallet)) > facts.seqno) return;
      throw err;
    }
  }

  async function transferStatus(signature: string): Promise<TransferStatus> {
    const facts = prepared.get(signature);
    // Unknown facts (restart without re-broadcast): look back one validity window and stay pending.
    const notBefore = (facts ? facts.validUntil : now()) - validity - EXPIRY_GRACE_SECONDS;
    const tx = await findExternal(rpc, facts?.wallet ?? treasuryAddress, signature, notBefore);
    if (tx) return deliveryOutcome(rpc, tx);
    if (!facts || now() <= facts.validUntil + EXPIRY_GRACE_SECONDS) return "pending";
    // Expired and absent from the whole window it could have run in: it never will.
    return "failed";
  }

  return {
    chain: "TON",
    custody: createTonCustody({
      rpc,
      treasury,
      depositWallet: (index) => deriveTonWalletFromSeed(seed, index),
      tokenDecimals,
      jettonWalletFor,
      seqnoOf,
      validUntil: () => now() + validity,
      payFromTreasury: prepareTransfer,
      remember: (p) => prepared.set(p.signature, readPrepared(p.raw)),
      queryIdOf,
      gasNano,
      forwardNano,
    }),
    rescanner: createTonRescanner({ rpc, stablecoin: opts.stablecoin?.address, jettonWalletsOf }),
    treasuryAddress: treasuryAddress.toRawString(),
    deriveAddress: (index) => tonAddressFromSeed(seed, index),
    poll,
    prepareTransfer,
    broadcast,
    transferStatus,
    tokenDecimals,
    recipientSetupCost: async () => "0",
  };
}
