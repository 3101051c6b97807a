import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, apiClient } from "./fault/api-client.ts";
import { faultStackOptions } from "./fault/fault-stack.ts";
import { type EvmChain, startEvmChain, EVM_TREASURY as treasury } from "./support/evm-fixture.ts";
import { type ProcessStack, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN, eventually } from "./support/stack.ts";

/**
 * Consolidation under real crashes: chain-watcher runs as a child process and is killed with SIGKILL
 * while settled offramps' deposit addresses are being swept into the treasury (top-ups signed, sweeps
 * signed or sent). Every address must end empty, each having sent exactly one transaction, the treasury
 * gaining exactly what they held and paying exactly one top-up each; nothing pending is left.
 */
const ORDERS = 3;

let evm: EvmChain;
let stack: ProcessStack;
let api: ApiClient;

beforeAll(async () => {
  evm = await startEvmChain();
  const base = faultStackOptions();
  stack = await startProcessStack({
    ...base,
    serviceEnv: {
      ...base.serviceEnv,
      "chain-watcher": {
        ...base.serviceEnv?.["chain-watcher"],
        ...evm.chainEnv(["BASE"]),
        POLL_INTERVAL_MS: "150",
      },
    },
  });
  const admin = apiClient(stack.gatewayUrl, { authorization: `Bearer ${ADMIN_TOKEN}` });
  expect((await admin.put("/admin/v1/rates/NGN", { onRamp: 1650, offRamp: 1600 })).status).toBe(200);
  const created = await admin.post("/admin/v1/businesses", { name: "Sweep Co" });
  api = apiClient(stack.gatewayUrl, { "x-api-key": (created.body as { apiKey: string }).apiKey });
}, 240_000);

afterAll(async () => {
  await stack?.close();
  await evm?.stop();
});

describe("consolidation with chain-watcher killed (kill -9) midway", () => {
  it("sweeps every settled address once: nothing sent twice, nothing lost, nothing left pending", async () => {
    const before = await evm.balanceOf(treasury);
    const treasuryNonce = await evm.sentCount(treasury);
    const orders: { id: string; address: string }[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const { body } = await api.post("/pub/v2/offramp", {
        accountNumber: "0123456789",
        bankCode: "000013",
        currency: "NGN",
        chain: "BASE",
        mint: evm.tokenAddress,
        amount: 10 + i,
      });
      orders.push(body as { id: string; address: string });
    }
    const db = await stack.db("chain-watcher");
    const transfers = db.collection<{ _id: string; status: string; outbox: unknown[] }>("transfers");
    const watcher = stack.service("chain-watcher");
    for (const [i, order] of orders.entries()) {
      await evm.pay(order.address, String(10 + i));
      await eventually(async () => {
        const r = await api.get(`/pub/v2/transaction/${order.id}`);
        return (r.body as { status: string }).status === "COMPLETED" ? true : undefined;
      }, 60_000);
      // Killed once a step of this address's sweep is signed and stored, before it is confirmed.
      await eventually(
        async () =>
          (await transfers.findOne({ _id: /^sweep:BASE:/, status: { $in: ["preparing", "broadcasting"] } }))
            ? true
            : undefined,
        30_000,
        10,
      );
      await watcher.kill();
      await watcher.start();
    }
    try {
      for (const order of orders) {
        await eventually(
          async () => ((await evm.balanceOf(order.address)) === 0n ? true : undefined),
          150_000,
        );
      }
    } catch (err) {
      // What was left, for whoever reads a failed run.
      console.log(JSON.stringify(await db.collection("sweeps").find().toArray(), null, 1));
      console.log(
        JSON.stringify(
          await transfers.find({ _id: /^sweep:/ }, { projection: { raw: 0 } }).toArray(),
          null,
          1,
        ),
      );
      console.log(JSON.stringify(orders));
      console.log(readFileSync(stack.logFile("chain-watcher"), "utf8").slice(-6000));
      throw err;
    }
    await eventually(
      async () => ((await db.collection("sweeps").countDocuments()) === 0 ? true : undefined),
      30_000,
    );
    const total = orders.reduce((sum, _, i) => sum + BigInt(10 + i) * 1_000_000n, 0n);
    expect(await evm.balanceOf(treasury)).toBe(before + total);
    for (const order of orders) expect(await evm.sentCount(order.address)).toBe(1);
    expect(await evm.sentCount(treasury)).toBe(treasuryNonce + ORDERS);
    const sweeps = await transfers.find({ _id: /^sweep:/ }).toArray();
    expect(sweeps.map((t) => t.status)).toEqual(Array(ORDERS * 2).fill("confirmed"));
    expect(sweeps.flatMap((t) => t.outbox)).toEqual([]);
  }, 420_000);
});
