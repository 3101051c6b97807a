import { Events, type ExceptionSignal } from "@ramp/contracts";
import { type SolanaLiteSvmChain, startSolanaLiteSvmChain } from "@ramp/devinfra/litesvm-chain";
import { startRpcProxy } from "@ramp/devinfra/rpc-proxy";
import { ensureStreams, publish, type Stoppable } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveSolanaTreasuryKeypair } from "../src/chains/solana/derive.ts";
import { DEV_MNEMONIC } from "../src/index.ts";
import { collect, eventually, type Harness, sleep, startHarness } from "./support/harness.ts";
import { settleOfframp } from "./support/settled.ts";

/**
 * How consolidation recovers, on LiteSVM behind a proxy that refuses `getLatestBlockhash` when told
 * (only signing a transaction asks for it). A step left unsigned is taken over at once. A sweep that
 * keeps failing is held and raises a `stuck` exception; an operator resolving it (orders then publishes
 * the resolution) releases it, and it runs again from a fresh reading, once.
 */
const treasury = deriveSolanaTreasuryKeypair(DEV_MNEMONIC).publicKey;

let solana: SolanaLiteSvmChain;
let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
let h: Harness;
let watcher: Stoppable;

beforeAll(async () => {
  solana = await startSolanaLiteSvmChain();
  solana.node.airdrop(treasury, 5_000_000_000n);
  proxy = await startRpcProxy(solana.url);
  h = await startHarness({
    RPC_URL_SOLANA: proxy.url,
    STABLECOIN_SOLANA: solana.mint,
    POLL_INTERVAL_MS: "150",
    // A failure to prepare ends the step at once, so three rounds pass quickly.
    TRANSFER_MAX_ATTEMPTS: "1",
  });
  watcher = await h.startWatcher();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await proxy?.close();
  await solana?.close();
});

const transfers = async () =>
  (await h.db()).collection<{ _id: string; status: string; recipient: string }>("transfers");

describe("a step left unsigned", () => {
  it("is taken over and signed once the node answers again, without waiting out its claim", async () => {
    // Transient failures are retried here, so the failed signing leaves its claim "preparing".
    await watcher.stop();
    watcher = await h.startWatcher({ TRANSFER_MAX_ATTEMPTS: "20" });
    try {
      const address = await h.offrampAddress("SOLANA", "takeover-1", solana.mint);
      solana.pay(address, 4_000_000n);
      const before = await solana.balanceOf(treasury.toBase58());
      proxy.refused.add("getLatestBlockhash");
      await settleOfframp(h, { id: "takeover-1", chain: "SOLANA", address, mint: solana.mint });
      const col = await transfers();
      const claimed = await eventually(
        async () =>
          (await col.findOne({ _id: /^sweep:SOLANA:.*:tokens$/, status: "preparing" })) ?? undefined,
        20_000,
      );
      await sleep(500); // a few more ticks fail against the same claim
      proxy.refused.delete("getLatestBlockhash");
      // The claim is minutes from stale by any clock: it is taken over because no run signs it now.
      await eventually(async () => ((await solana.balanceOf(address)) === 0n ? true : undefined), 10_000);
      await eventually(async () =>
        (await col.findOne({ _id: claimed._id }))?.status === "confirmed" ? true : undefined,
      );
      await sleep(1_000);
      expect(await solana.balanceOf(treasury.toBase58())).toBe(before + 4_000_000n);
      expect(await col.countDocuments({ _id: /^sweep:SOLANA:/ })).toBe(1);
    } finally {
      proxy.refused.clear();
      await watcher.stop();
      watcher = await h.startWatcher();
    }
  });
});

describe("a held sweep", () => {
  it("raises `stuck` once held; resolving it sweeps the address once, and a repeat changes nothing", async () => {
    const address = await h.offrampAddress("SOLANA", "held-1", solana.mint);
    solana.pay(address, 5_000_000n);
    const raised = await collect(h.observer, Events.chainExceptions);
    const sweeps = (await h.db()).collection<{ status: string; cycle: string; reason: string | null }>(
      "sweeps",
    );
    try {
      proxy.refused.add("getLatestBlockhash");
      await settleOfframp(h, { id: "held-1", chain: "SOLANA", address, mint: solana.mint });
      const held = await eventually(
        async () => (await sweeps.findOne({ status: "held" })) ?? undefined,
        30_000,
      );
      expect(held.reason).toMatch(/could not be prepared/);
      const signal = await eventually(
        () => raised.received.find((r) => r.payload.action === "raise")?.payload,
      );
      expect(signal).toMatchObject({
        action: "raise",
        kind: "stuck",
        key: `sweep-held:${held.cycle}`,
        businessId: null,
        chain: "SOLANA",
        token: solana.mint,
        amount: "5",
      } satisfies Partial<ExceptionSignal>);
      // Held means left alone: nothing is tried while the operator has not answered.
      await sleep(1_000);
      expect(await sweeps.findOne({ status: "held" })).toMatchObject({ cycle: held.cycle });
      expect(await solana.balanceOf(address)).toBe(5_000_000n);

      proxy.refused.delete("getLatestBlockhash");
      const before = await solana.balanceOf(treasury.toBase58());
      const confirmed = await (await transfers()).countDocuments({
        _id: /^sweep:SOLANA:/,
        status: "confirmed",
      });
      const { js } = await ensureStreams(h.nc);
      const key = `sweep-held:${held.cycle}`;
      // Another service's exception resolved: not chain-watcher's to act on.
      await publish(js, Events.exceptionResolved, { key: "stuck:abc", kind: "stuck", note: "x" }, "r0");
      // The operator's resolution, and a redelivery of it under another message id.
      for (const id of ["r1", "r2"])
        await publish(js, Events.exceptionResolved, { key, kind: "stuck", note: "RPC node fixed" }, id);
      await eventually(async () => ((await solana.balanceOf(address)) === 0n ? true : undefined), 30_000);
      await eventually(async () => ((await sweeps.countDocuments()) === 0 ? true : undefined));
      await sleep(1_000);
      expect(await solana.balanceOf(treasury.toBase58())).toBe(before + 5_000_000n);
      // One new cycle, one sweep: its tokens step is the only one that ever signed.
      const col = await transfers();
      expect(await col.countDocuments({ _id: /^sweep:SOLANA:/, status: "confirmed" })).toBe(confirmed + 1);
      expect(
        await col.countDocuments({ _id: /^sweep:SOLANA:/, status: { $nin: ["confirmed", "failed"] } }),
      ).toBe(0);
    } finally {
      proxy.refused.clear();
      await raised.close();
    }
  });
});

describe("a sweep held before its exception existed", () => {
  it("is raised when the service starts, and resolving it releases it", async () => {
    const address = await h.offrampAddress("SOLANA", "old-held", solana.mint);
    solana.pay(address, 2_000_000n);
    const db = await h.db();
    const allocation = await db
      .collection<{ _id: string; index: number }>("allocations")
      .findOne({ _id: "offramp:old-held" });
    await watcher.stop();
    // What an older version left: held after three rounds, with no exception raised.
    const since = new Date(Date.now() - 3_600_000);
    await db.collection("sweeps").insertOne({
      _id: `SOLANA:${address}:${solana.mint}`,
      chain: "SOLANA",
      address,
      index: allocation!.index,
      mint: solana.mint,
      status: "held",
      cycle: "older-cycle",
      round: 2,
      amount: "2",
      gas: "0",
      attempts: 0,
      reason: "transfer failed",
      dueAt: since,
      updatedAt: since,
    } as never);
    const raised = await collect(h.observer, Events.chainExceptions);
    try {
      watcher = await h.startWatcher();
      const signal = await eventually(
        () =>
          raised.received.find(
            (r) => r.payload.action === "raise" && r.payload.key === "sweep-held:older-cycle",
          )?.payload,
      );
      expect(signal).toMatchObject({ kind: "stuck", amount: "2", since: since.toISOString() });
      const { js } = await ensureStreams(h.nc);
      await publish(
        js,
        Events.exceptionResolved,
        { key: "sweep-held:older-cycle", kind: "stuck", note: "go" },
        "r-old",
      );
      await eventually(async () => ((await solana.balanceOf(address)) === 0n ? true : undefined), 30_000);
      await eventually(async () =>
        (await db.collection("sweeps").countDocuments()) === 0 ? true : undefined,
      );
    } finally {
      await raised.close();
    }
  });
});
