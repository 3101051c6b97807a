import { Events, Rpc } from "@ramp/contracts";
import { type SolanaLiteSvmChain, startSolanaLiteSvmChain } from "@ramp/devinfra/litesvm-chain";
import { callRpc, type Stoppable } from "@ramp/runtime";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveSolanaTreasuryKeypair } from "../src/chains/solana/derive.ts";
import { DEV_MNEMONIC } from "../src/index.ts";
import { collect, eventually, type Harness, sleep, startHarness } from "./support/harness.ts";
import { settleOfframp } from "./support/settled.ts";

/**
 * Money operations on Solana: the running service against LiteSVM behind a JSON-RPC endpoint on
 * 127.0.0.1. The treasury holds SOL for fees and none of the token until consolidations arrive.
 */
const treasury = deriveSolanaTreasuryKeypair(DEV_MNEMONIC).publicKey;

let solana: SolanaLiteSvmChain;
let h: Harness;
let watcher: Stoppable;

beforeAll(async () => {
  solana = await startSolanaLiteSvmChain();
  solana.node.airdrop(treasury, 5_000_000_000n);
  h = await startHarness({
    RPC_URL_SOLANA: solana.url,
    STABLECOIN_SOLANA: solana.mint,
    POLL_INTERVAL_MS: "150",
    TREASURY_MIN_SOLANA: "10",
  });
  watcher = await h.startWatcher();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await solana?.close();
});

const offrampAddress = (ref: string) => h.offrampAddress("SOLANA", ref, solana.mint);

/** Signatures that touched `owner`'s token account, newest first. */
const signaturesOf = (owner: string) =>
  solana.node.call("getSignaturesForAddress", [
    getAssociatedTokenAddressSync(new PublicKey(solana.mint), new PublicKey(owner), true).toBase58(),
    {},
  ]) as { signature: string; slot: number }[];

describe("consolidation on LiteSVM", () => {
  it("moves a settled offramp's tokens to the treasury, the treasury paying the fee", async () => {
    const address = await offrampAddress("sol-cons-1");
    solana.pay(address, 25_000_000n);
    const before = await solana.balanceOf(treasury.toBase58());
    await settleOfframp(h, { id: "sol-cons-1", chain: "SOLANA", address, mint: solana.mint }, 2);
    await eventually(async () => ((await solana.balanceOf(address)) === 0n ? true : undefined), 30_000);
    expect(await solana.balanceOf(treasury.toBase58())).toBe(before + 25_000_000n);
    // The deposit address never held SOL: it only signed as the tokens' owner.
    const deposit = solana.node.call("getAccountInfo", [address, { encoding: "base64" }]) as {
      value: unknown;
    };
    expect(deposit.value).toBeNull();
    expect(signaturesOf(address)).toHaveLength(2); // the payment and the one sweep
    await eventually(async () =>
      (await (await h.db()).collection("sweeps").countDocuments()) === 0 ? true : undefined,
    );
  });

  it("sends the sweep once when the service stops midway and starts again", async () => {
    const address = await offrampAddress("sol-cons-2");
    solana.pay(address, 40_000_000n);
    const before = await solana.balanceOf(treasury.toBase58());
    await settleOfframp(h, { id: "sol-cons-2", chain: "SOLANA", address, mint: solana.mint });
    const transfers = (await h.db()).collection<{ _id: string; recipient: string }>("transfers");
    await eventually(
      async () =>
        (await transfers.findOne({ _id: /^sweep:SOLANA:.*:tokens$/, amount: "40" })) ? true : undefined,
      20_000,
      20,
    );
    await watcher.stop();
    watcher = await h.startWatcher();
    await eventually(async () => ((await solana.balanceOf(address)) === 0n ? true : undefined), 30_000);
    await sleep(1_000);
    expect(await solana.balanceOf(treasury.toBase58())).toBe(before + 40_000_000n);
    expect(signaturesOf(address)).toHaveLength(2);
  });
});

describe("treasury on LiteSVM", () => {
  it("shows SOL and the stablecoin against TREASURY_MIN_SOLANA", async () => {
    const { data } = await callRpc(h.gateway, Rpc.chainTreasury, {});
    expect(data).toEqual([
      {
        chain: "SOLANA",
        address: treasury.toBase58(),
        native: { symbol: "SOL", balance: expect.stringMatching(/^4\.99/) },
        stablecoin: { symbol: "USDC", balance: "65" },
        minimum: "10",
        low: false,
      },
    ]);
  });
});

describe("reindex on LiteSVM", () => {
  it("finds a deposit the watcher's cursor moved past, once", async () => {
    const events = await collect(h.observer, Events.depositObserved);
    try {
      const address = await offrampAddress("sol-reindex-1");
      await sleep(500); // a poll sees the new (empty) token account
      await watcher.stop();
      const signature = solana.pay(address, 7_000_000n);
      const slot = solana.node.slot;
      // The cursor past the send: its token account's last handled signature is the payment itself.
      const ata = getAssociatedTokenAddressSync(
        new PublicKey(solana.mint),
        new PublicKey(address),
        true,
      ).toBase58();
      const cursors = (await h.db()).collection<{ _id: string; cursor: string }>("chain_cursors");
      const state = JSON.parse((await cursors.findOne({ _id: "SOLANA" }))?.cursor ?? "{}");
      await cursors.updateOne(
        { _id: "SOLANA" },
        { $set: { cursor: JSON.stringify({ ...state, [ata]: signature }) } },
      );
      watcher = await h.startWatcher();
      const mine = () => events.received.filter((e) => e.payload.txId === signature);
      await sleep(1_500);
      expect(mine()).toHaveLength(0);

      const accepted = await callRpc(h.gateway, Rpc.chainReindex, {
        chain: "SOLANA",
        from: String(slot - 1),
        to: String(slot),
      });
      expect(accepted).toEqual({ chain: "SOLANA", from: String(slot - 1), to: String(slot), unit: "slot" });
      await eventually(() => (mine().length > 0 ? true : undefined), 15_000);
      expect(mine()[0]!.payload).toMatchObject({ address, amount: "7", ref: "sol-reindex-1" });
      await callRpc(h.gateway, Rpc.chainReindex, { chain: "SOLANA", from: "0", to: String(slot + 5) });
      await sleep(1_500);
      expect(mine()).toHaveLength(1);
    } finally {
      await events.close();
    }
  });
});
