import { Events, Rpc } from "@ramp/contracts";
import { type Anvil, deployTestUsdc, startAnvil, TEST_USDC_ABI } from "@ramp/devinfra/anvil";
import { callRpc, metrics, type Stoppable } from "@ramp/runtime";
import { Contract, NonceManager, parseEther } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_MNEMONIC, EvmKeyring } from "../src/index.ts";
import { collect, eventually, type Harness, sleep, startHarness } from "./support/harness.ts";
import { settleOfframp, settlePayment } from "./support/settled.ts";

/**
 * Money operations on an EVM chain (anvil): consolidation of a settled offramp's deposit address into
 * the treasury, the treasury's balances against TREASURY_MIN_BASE, and reindex of a missed deposit.
 */
const treasury = new EvmKeyring(DEV_MNEMONIC).treasuryAddress;

let anvil: Anvil;
let h: Harness;
let watcher: Stoppable;
let token: Contract;
let tokenAddress: string;
let mining: NodeJS.Timeout;

beforeAll(async () => {
  anvil = await startAnvil();
  const deployer = new NonceManager(anvil.account(0));
  tokenAddress = await (await deployTestUsdc(deployer)).getAddress();
  token = new Contract(tokenAddress, TEST_USDC_ABI, deployer);
  await (await token.getFunction("mint")(treasury, 500_000_000n)).wait();
  await anvil.provider.send("anvil_setBalance", [treasury, `0x${parseEther("10").toString(16)}`]);
  h = await startHarness({
    RPC_URL_BASE: anvil.url,
    STABLECOIN_BASE: tokenAddress.toLowerCase(),
    CONFIRMATIONS_BASE: "2",
    POLL_INTERVAL_MS: "150",
    TREASURY_MIN_BASE: "1000",
    TREASURY_CHECK_INTERVAL_MS: "300",
  });
  watcher = await h.startWatcher();
  // A block every 200 ms, so confirmation depths are reached throughout.
  mining = setInterval(() => void anvil.mine(1).catch(() => undefined), 200);
}, 120_000);

afterAll(async () => {
  clearInterval(mining);
  await h?.close();
  await anvil?.stop();
});

const balanceOf = async (who: string) => (await token.getFunction("balanceOf")(who)) as bigint;

const offrampAddress = (ref: string) => h.offrampAddress("BASE", ref, tokenAddress);

const settle = (id: string, address: string, times = 1) =>
  settleOfframp(h, { id, chain: "BASE", address, mint: tokenAddress }, times);

describe("consolidation on anvil", () => {
  it("moves a settled offramp's tokens to the treasury, topping the address up with gas from the treasury", async () => {
    const address = await offrampAddress("cons-1");
    await (await token.getFunction("mint")(address, 25_000_000n)).wait();
    const before = await balanceOf(treasury);
    const treasuryNonce = await anvil.provider.getTransactionCount(treasury);
    // A repeat of the same event (another message id) must not sweep twice.
    await settle("cons-1", address, 2);
    await eventually(async () => ((await balanceOf(address)) === 0n ? true : undefined), 30_000);
    expect(await balanceOf(treasury)).toBe(before + 25_000_000n);
    // One top-up from the treasury and one transfer from the deposit address, signed by its own key.
    expect(await anvil.provider.getTransactionCount(treasury)).toBe(treasuryNonce + 1);
    expect(await anvil.provider.getTransactionCount(address)).toBe(1);
    // The pending work is emptied as it completes.
    await eventually(async () =>
      (await (await h.db()).collection("sweeps").countDocuments()) === 0 ? true : undefined,
    );
    // Consolidation's transfers are the service's own: orders hears nothing of them.
    const results = await collect(h.observer, Events.transferResult);
    await sleep(300);
    expect(results.received.filter((r) => r.payload.requestId.startsWith("sweep:"))).toEqual([]);
    await results.close();

    // A late deposit to the settled address (orders records it as a fund to refund) is swept as well.
    await (await token.getFunction("mint")(address, 3_000_000n)).wait();
    await eventually(
      async () => ((await balanceOf(treasury)) === before + 28_000_000n ? true : undefined),
      30_000,
    );
    expect(await balanceOf(address)).toBe(0n);
  });

  it("sends each step once when the service stops midway and starts again", async () => {
    const address = await offrampAddress("cons-2");
    await (await token.getFunction("mint")(address, 40_000_000n)).wait();
    const before = await balanceOf(treasury);
    const treasuryNonce = await anvil.provider.getTransactionCount(treasury);
    await settle("cons-2", address);
    // Stopped as soon as the gas top-up is signed and stored, before it is confirmed.
    const transfers = (await h.db()).collection<{ _id: string; status: string; recipient: string }>(
      "transfers",
    );
    await eventually(
      async () =>
        (await transfers.findOne({ recipient: address, _id: /^sweep:.*:gas$/ })) ? true : undefined,
      20_000,
      20,
    );
    await watcher.stop();
    await sleep(500);
    watcher = await h.startWatcher();
    await eventually(async () => ((await balanceOf(address)) === 0n ? true : undefined), 30_000);
    await sleep(1_000);
    expect(await balanceOf(treasury)).toBe(before + 40_000_000n);
    expect(await anvil.provider.getTransactionCount(treasury)).toBe(treasuryNonce + 1);
    expect(await anvil.provider.getTransactionCount(address)).toBe(1);
  });

  it("moves a successful token payment's tokens to the treasury", async () => {
    const { address } = await callRpc(h.nc, Rpc.addressAllocate, {
      chain: "BASE",
      purpose: "payment",
      ref: "pay-1",
      mints: [tokenAddress],
    });
    await (await token.getFunction("mint")(address, 10_100_000n)).wait();
    const before = await balanceOf(treasury);
    await settlePayment(h, { id: "pay-1", chain: "BASE", address, mint: tokenAddress });
    await eventually(async () => ((await balanceOf(address)) === 0n ? true : undefined), 30_000);
    expect(await balanceOf(treasury)).toBe(before + 10_100_000n);
  });

  it("leaves a balance at or below SWEEP_MIN_BASE where it is", async () => {
    await watcher.stop();
    watcher = await h.startWatcher({ SWEEP_MIN_BASE: "1" });
    const address = await offrampAddress("cons-3");
    await (await token.getFunction("mint")(address, 1_000_000n)).wait();
    await settle("cons-3", address);
    await eventually(async () =>
      (await (await h.db()).collection("sweeps").countDocuments()) === 0 ? true : undefined,
    );
    expect(await balanceOf(address)).toBe(1_000_000n);
    expect(await anvil.provider.getTransactionCount(address)).toBe(0);
    await watcher.stop();
    watcher = await h.startWatcher();
  });
});

describe("treasury on anvil", () => {
  it("answers the balances against TREASURY_MIN_BASE and exports them as a gauge", async () => {
    const { data } = await callRpc(h.gateway, Rpc.chainTreasury, {});
    const base = data.find((t) => t.chain === "BASE");
    const held = await balanceOf(treasury);
    expect(base).toMatchObject({
      chain: "BASE",
      address: treasury,
      native: { symbol: "ETH" },
      stablecoin: { symbol: "USDC", balance: String(Number(held) / 1e6) },
      minimum: "1000",
      low: true,
    });
    expect(Number(base!.native.balance)).toBeGreaterThan(9);
    // Chains on the sandbox adapter have no treasury to show.
    expect(data.map((t) => t.chain)).toEqual(["BASE"]);
    const exposition = await metrics.metrics();
    expect(exposition).toMatch(/ramp_treasury_balance\{chain="BASE",asset="USDC"\} \d+/);
    expect(exposition).toMatch(/ramp_treasury_balance\{chain="BASE",asset="ETH"\} \d/);

    // Topped up above the minimum: no longer low.
    await (await token.getFunction("mint")(treasury, 1_000_000_000n)).wait();
    const after = await callRpc(h.gateway, Rpc.chainTreasury, {});
    expect(after.data[0]).toMatchObject({ low: false, minimum: "1000" });
  });
});

describe("reindex on anvil", () => {
  it("finds a deposit the watcher's cursor moved past, once, however often it is asked", async () => {
    const events = await collect(h.observer, Events.depositObserved);
    try {
      const address = await offrampAddress("reindex-1");
      await watcher.stop();
      const receipt = await (await token.getFunction("mint")(address, 7_000_000n)).wait();
      const block = receipt.blockNumber as number;
      await anvil.mine(5);
      // The cursor past the send, as if an RPC outage outlasted the lookback.
      await (await h.db())
        .collection<{ _id: string; cursor: string }>("chain_cursors")
        .updateOne({ _id: "BASE" }, { $set: { cursor: String(block + 2) } }, { upsert: true });
      watcher = await h.startWatcher();
      const mine = () => events.received.filter((e) => e.payload.txId === receipt.hash);
      await sleep(1_500);
      expect(mine()).toHaveLength(0);

      const accepted = await callRpc(h.gateway, Rpc.chainReindex, {
        chain: "BASE",
        from: String(block - 1),
        to: String(block + 1),
      });
      expect(accepted).toEqual({
        chain: "BASE",
        from: String(block - 1),
        to: String(block + 1),
        unit: "block",
      });
      await eventually(() => (mine().length > 0 ? true : undefined), 15_000);
      expect(mine()[0]!.payload).toMatchObject({
        address,
        amount: "7",
        purpose: "offramp",
        ref: "reindex-1",
      });
      // Again, over a range that includes it: a transfer seen before changes nothing.
      await callRpc(h.gateway, Rpc.chainReindex, {
        chain: "BASE",
        from: String(block - 3),
        to: String(block + 3),
      });
      await sleep(1_500);
      expect(mine()).toHaveLength(1);
    } finally {
      await events.close();
    }
  });

  it("refuses a range wider than the bound, a reversed one, and a chain on the sandbox adapter, with 400", async () => {
    const refused = (req: { chain: "BASE" | "SOLANA"; from: string; to: string }) =>
      callRpc(h.gateway, Rpc.chainReindex, req).then(
        () => undefined,
        (err: { code?: string; message?: string }) => err,
      );
    expect(await refused({ chain: "BASE", from: "0", to: "50000" })).toMatchObject({ code: "BAD_REQUEST" });
    expect((await refused({ chain: "BASE", from: "0", to: "50000" }))?.message).toMatch(
      /at most 50000 blocks/,
    );
    expect(await refused({ chain: "BASE", from: "10", to: "9" })).toMatchObject({ code: "BAD_REQUEST" });
    expect(await refused({ chain: "SOLANA", from: "1", to: "2" })).toMatchObject({ code: "BAD_REQUEST" });
  });
});
