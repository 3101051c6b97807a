import { Events, Rpc } from "@ramp/contracts";
import { startTonSandboxChain, TON_DECIMALS, type TonSandboxChain } from "@ramp/devinfra/ton-chain";
import { callRpc, type Stoppable } from "@ramp/runtime";
import { Address, toNano } from "@ton/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveTonTreasuryWallet } from "../src/chains/ton/derive.ts";
import { DEV_MNEMONIC } from "../src/index.ts";
import { collect, eventually, type Harness, sleep, startHarness } from "./support/harness.ts";
import { settleOfframp } from "./support/settled.ts";

/**
 * Money operations on TON: the running service against @ton/sandbox behind a toncenter v2 endpoint on
 * 127.0.0.1. The treasury starts with 10 TON and 1000 of the jetton.
 */
const treasury = deriveTonTreasuryWallet(DEV_MNEMONIC).wallet.address;

let ton: TonSandboxChain;
let h: Harness;
let watcher: Stoppable;
let mint: string;

beforeAll(async () => {
  ton = await startTonSandboxChain(treasury);
  mint = ton.minter.toString({ bounceable: true });
  h = await startHarness({
    RPC_URL_TON: ton.url,
    STABLECOIN_TON: mint,
    STABLECOIN_DECIMALS_TON: String(TON_DECIMALS),
    POLL_INTERVAL_MS: "150",
    TREASURY_MIN_TON: "2000",
  });
  watcher = await h.startWatcher();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await ton?.close();
});

const offrampAddress = async (ref: string) => Address.parse(await h.offrampAddress("TON", ref, mint));

/** The treasury's outgoing messages so far: its seqno (0 while undeployed). */
async function treasurySeqno(): Promise<number> {
  if (!(await ton.rpc.isContractDeployed(treasury))) return 0;
  return (await ton.rpc.runMethod(treasury, "seqno")).stack.readNumber();
}

const depositSeqno = async (address: Address) =>
  (await ton.rpc.isContractDeployed(address))
    ? (await ton.rpc.runMethod(address, "seqno")).stack.readNumber()
    : 0;

describe("consolidation on @ton/sandbox", () => {
  it("tops the deposit wallet up with Toncoin, then moves its jettons to the treasury", async () => {
    const address = await offrampAddress("ton-cons-1");
    await ton.pay(address, 25_000_000n);
    const before = await ton.balanceOf(treasury);
    const seqno = await treasurySeqno();
    await settleOfframp(h, { id: "ton-cons-1", chain: "TON", address: address.toRawString(), mint }, 2);
    await eventually(async () => ((await ton.balanceOf(address)) === 0n ? true : undefined), 40_000);
    expect(await ton.balanceOf(treasury)).toBe(before + 25_000_000n);
    // One top-up from the treasury, one jetton transfer from the deposit wallet (which it deployed).
    expect(await treasurySeqno()).toBe(seqno + 1);
    expect(await depositSeqno(address)).toBe(1);
    await eventually(async () =>
      (await (await h.db()).collection("sweeps").countDocuments()) === 0 ? true : undefined,
    );
  });

  it("sends each step once when the service stops midway and starts again", async () => {
    const address = await offrampAddress("ton-cons-2");
    await ton.pay(address, 40_000_000n);
    const before = await ton.balanceOf(treasury);
    const seqno = await treasurySeqno();
    await settleOfframp(h, { id: "ton-cons-2", chain: "TON", address: address.toRawString(), mint });
    const transfers = (await h.db()).collection<{ _id: string; recipient: string }>("transfers");
    await eventually(
      async () =>
        (await transfers.findOne({ _id: /^sweep:TON:.*:gas$/, recipient: address.toRawString() }))
          ? true
          : undefined,
      20_000,
      20,
    );
    await watcher.stop();
    watcher = await h.startWatcher();
    await eventually(async () => ((await ton.balanceOf(address)) === 0n ? true : undefined), 40_000);
    await sleep(1_000);
    expect(await ton.balanceOf(treasury)).toBe(before + 40_000_000n);
    expect(await treasurySeqno()).toBe(seqno + 1);
    expect(await depositSeqno(address)).toBe(1);
  });
});

describe("consolidation of Toncoin on @ton/sandbox", () => {
  it("a deposit wallet paid in Toncoin sends all of it to the treasury, with no top-up, and is not held", async () => {
    const address = await offrampAddress("ton-cons-toncoin");
    await ton.payToncoin(address, toNano("3"));
    const before = await ton.toncoinOf(treasury);
    const seqno = await treasurySeqno();
    const sweeps = (await h.db()).collection<{ status: string; mint: string }>("sweeps");
    await settleOfframp(h, {
      id: "ton-cons-toncoin",
      chain: "TON",
      address: address.toRawString(),
      mint: "TON",
    });
    await eventually(async () => ((await ton.toncoinOf(address)) === 0n ? true : undefined), 40_000);
    // Everything but the deposit wallet's own fees (its deployment and the transfer) reached the treasury.
    const gained = (await ton.toncoinOf(treasury)) - before;
    expect(gained).toBeGreaterThan(toNano("2.9"));
    expect(gained).toBeLessThanOrEqual(toNano("3"));
    // The treasury sent nothing for it; the deposit wallet one message, which deployed it.
    expect(await treasurySeqno()).toBe(seqno);
    expect(await depositSeqno(address)).toBe(1);
    await eventually(async () => ((await sweeps.countDocuments({ mint: "TON" })) === 0 ? true : undefined));
  });
});

describe("treasury on @ton/sandbox", () => {
  it("shows TON and the jetton, low against TREASURY_MIN_TON", async () => {
    const { data } = await callRpc(h.gateway, Rpc.chainTreasury, {});
    expect(data).toEqual([
      {
        chain: "TON",
        address: treasury.toRawString(),
        // 10 to start, less two gas top-ups, plus about 3 consolidated from a Toncoin deposit.
        native: { symbol: "TON", balance: expect.stringMatching(/^12\./) },
        stablecoin: { symbol: "USDT", balance: "1065" },
        minimum: "2000",
        low: true,
      },
    ]);
  });
});

describe("reindex on @ton/sandbox", () => {
  it("finds a deposit the watcher's cursor moved past, once", async () => {
    const events = await collect(h.observer, Events.depositObserved);
    try {
      const address = await offrampAddress("ton-reindex-1");
      await sleep(500);
      await watcher.stop();
      const paid = await ton.pay(address, 7_000_000n);
      const cursors = (await h.db()).collection<{ _id: string; cursor: string }>("chain_cursors");
      const state = JSON.parse((await cursors.findOne({ _id: "TON" }))?.cursor ?? "{}");
      await cursors.updateOne(
        { _id: "TON" },
        { $set: { cursor: JSON.stringify({ ...state, [address.toRawString()]: String(paid.lt) }) } },
      );
      watcher = await h.startWatcher();
      const mine = () => events.received.filter((e) => e.payload.txId === paid.hash);
      await sleep(1_500);
      expect(mine()).toHaveLength(0);

      const from = String(paid.lt - 1n);
      const to = String(paid.lt + 1n);
      expect(await callRpc(h.gateway, Rpc.chainReindex, { chain: "TON", from, to })).toEqual({
        chain: "TON",
        from,
        to,
        unit: "lt",
      });
      await eventually(() => (mine().length > 0 ? true : undefined), 15_000);
      expect(mine()[0]!.payload).toMatchObject({ amount: "7", ref: "ton-reindex-1" });
      await callRpc(h.gateway, Rpc.chainReindex, { chain: "TON", from: "0", to: String(paid.lt + 1000n) });
      await sleep(1_500);
      expect(mine()).toHaveLength(1);
    } finally {
      await events.close();
    }
  });
});
