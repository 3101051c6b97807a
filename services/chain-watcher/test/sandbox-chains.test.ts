import { type AppError, Commands, Events, Rpc } from "@ramp/contracts";
import { callRpc, ensureStreams, publish } from "@ramp/runtime";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AllocationDoc } from "../src/allocation/allocation-store.ts";
import { collect, eventually, type Harness, sleep, startHarness } from "./support/harness.ts";

const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const WETH = "0x4200000000000000000000000000000000000006";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.startWatcher();
});
afterAll(async () => h?.close());

describe("allocation on sandbox chains", () => {
  it("returns the same EVM address for the same ref and distinct ones for distinct refs", async () => {
    const a = await callRpc(h.nc, Rpc.addressAllocate, {
      chain: "BASE",
      purpose: "offramp",
      ref: "o-1",
      mints: [BASE_USDC],
    });
    const again = await callRpc(h.nc, Rpc.addressAllocate, {
      chain: "BASE",
      purpose: "offramp",
      ref: "o-1",
      mints: [BASE_USDC],
    });
    const b = await callRpc(h.nc, Rpc.addressAllocate, {
      chain: "BASE",
      purpose: "offramp",
      ref: "o-2",
      mints: [BASE_USDC],
    });
    expect(again.address).toBe(a.address);
    expect(b.address).not.toBe(a.address);
    expect(a.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("keeps handing out an address stored before allocations were keyed by their ref", async () => {
    const legacy = "0x000000000000000000000000000000000000dEaD";
    const client = await MongoClient.connect(String(h.env.MONGODB_URI));
    try {
      await client.db(h.env.MONGODB_DATABASE).collection<AllocationDoc>("allocations").insertOne({
        _id: "evm:999999",
        family: "evm",
        index: 999_999,
        chain: "BASE",
        purpose: "offramp",
        ref: "o-legacy",
        mints: [],
        address: legacy,
        createdAt: new Date(),
      });
    } finally {
      await client.close();
    }
    const again = await callRpc(h.nc, Rpc.addressAllocate, {
      chain: "BASE",
      purpose: "offramp",
      ref: "o-legacy",
      mints: [BASE_USDC],
    });
    expect(again.address).toBe(legacy);
  });

  it("hands out distinct addresses to concurrent allocations", async () => {
    const refs = Array.from({ length: 8 }, (_, i) => `c-${i}`);
    const out = await Promise.all(
      refs.map((ref) =>
        callRpc(h.nc, Rpc.addressAllocate, { chain: "ETHEREUM", purpose: "payment", ref, mints: [] }),
      ),
    );
    expect(new Set(out.map((o) => o.address)).size).toBe(refs.length);
  });

  it("allocates Solana and TON addresses in their own formats", async () => {
    const sol = await callRpc(h.nc, Rpc.addressAllocate, {
      chain: "SOLANA",
      purpose: "bank-account",
      ref: "b-1",
      mints: [],
    });
    expect(sol.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const ton = await callRpc(h.nc, Rpc.addressAllocate, {
      chain: "TON",
      purpose: "offramp",
      ref: "t-1",
      mints: ["TON"],
    });
    expect(ton.address).toMatch(/^0:[0-9a-f]{64}$/);
  });

  it("rejects a mint in another chain's format with 400", async () => {
    await expect(
      callRpc(h.nc, Rpc.addressAllocate, { chain: "BASE", purpose: "offramp", ref: "bad", mints: ["TON"] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" } satisfies Partial<AppError>);
  });
});

describe("sandbox deposits and transfers", () => {
  it("publishes an injected deposit once, with the allocation's purpose and ref", async () => {
    const events = await collect(h.observer, Events.depositObserved);
    try {
      const { address } = await callRpc(h.nc, Rpc.addressAllocate, {
        chain: "BASE",
        purpose: "offramp",
        ref: "dep-1",
        mints: [BASE_USDC],
      });
      const { reference } = await callRpc(h.nc, Rpc.sandboxChainDeposit, {
        chain: "BASE",
        address: address.toLowerCase(),
        mint: BASE_USDC,
        amount: "12.50",
      });
      const mine = () => events.received.filter((e) => e.payload.txId === reference);
      await eventually(() => (mine().length === 1 ? true : undefined));
      await sleep(500);
      expect(mine()).toHaveLength(1);
      expect(mine()[0]).toMatchObject({
        msgId: `BASE:${reference}:0`,
        payload: {
          chain: "BASE",
          address,
          mint: BASE_USDC,
          amount: "12.5",
          purpose: "offramp",
          ref: "dep-1",
          token: { decimals: 6, stablecoin: true, usdPrice: "1" },
        },
      });
    } finally {
      await events.close();
    }
  });

  it("describes another token in the event as what it is: not the stablecoin, its own decimals", async () => {
    const events = await collect(h.observer, Events.depositObserved);
    try {
      const { address } = await callRpc(h.nc, Rpc.addressAllocate, {
        chain: "BASE",
        purpose: "bank-account",
        ref: "dep-2",
        mints: [],
      });
      const { reference } = await callRpc(h.nc, Rpc.sandboxChainDeposit, {
        chain: "BASE",
        address,
        mint: WETH,
        amount: "0.5",
      });
      const ev = await eventually(() => events.received.find((e) => e.payload.txId === reference));
      const info = await callRpc(h.nc, Rpc.tokenInfo, { chain: "BASE", mint: WETH });
      expect(ev.payload.token).toEqual({ decimals: 18, stablecoin: false, usdPrice: info.usdPrice });
    } finally {
      await events.close();
    }
  });

  it("answers 404 for an address that was never allocated", async () => {
    await expect(
      callRpc(h.nc, Rpc.sandboxChainDeposit, {
        chain: "BASE",
        address: "0x0000000000000000000000000000000000000001",
        mint: BASE_USDC,
        amount: "1",
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("confirms a sandbox transfer once, even when the command is sent twice", async () => {
    const results = await collect(h.observer, Events.transferResult);
    try {
      const { js } = await ensureStreams(h.nc);
      const cmd = {
        requestId: "sbx-1",
        chain: "BASE" as const,
        mint: BASE_USDC,
        recipient: BASE_USDC,
        amount: "3",
      };
      await publish(js, Commands.chainTransfer, cmd, "sbx-1:a");
      await publish(js, Commands.chainTransfer, cmd, "sbx-1:b");
      await eventually(() =>
        results.received.some((r) => r.payload.requestId === "sbx-1") ? true : undefined,
      );
      await sleep(800);
      const mine = results.received.filter((r) => r.payload.requestId === "sbx-1");
      expect(mine).toHaveLength(1);
      expect(mine[0]!.payload).toMatchObject({ status: "CONFIRMED", reason: null });
      expect(mine[0]!.payload.signature).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      await results.close();
    }
  });

  it("answers tokenInfo for the sandbox stablecoin", async () => {
    const info = await callRpc(h.nc, Rpc.tokenInfo, { chain: "BASE", mint: BASE_USDC.toLowerCase() });
    expect(info).toEqual({ decimals: 6, stablecoin: true, usdPrice: "1", setupCostUsd: "0" });
  });
});
