import type { ExceptionDto } from "@ramp/contracts";
import { parseUnits } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiClient, apiClient } from "./fault/api-client.ts";
import { faultStackOptions } from "./fault/fault-stack.ts";
import { signedInOperator } from "./support/console-operator.ts";
import { EVM_TREASURY, type EvmChain, startEvmChain } from "./support/evm-fixture.ts";
import { type ProcessStack, startProcessStack } from "./support/process-stack.ts";
import { ADMIN_TOKEN, eventually } from "./support/stack.ts";

/**
 * A refund is sent exactly once when the services carrying it are `kill -9`ed midway: every service a
 * real process, a real local EVM chain. chain-watcher dies once just after the refund is claimed and
 * once after it signed and broadcast the transfer (blocks held back, so it is not yet confirmed), and
 * orders dies with it the second time, before the result reaches it; the operator keeps clicking.
 */
let evm: EvmChain;
let stack: ProcessStack;
let api: ApiClient;
let ops: ApiClient;
const REFUND_TO = "0x00000000000000000000000000000000000b0b00";

beforeAll(async () => {
  evm = await startEvmChain();
  // No consolidation here: its gas top-ups would also leave the treasury, which this test counts for
  // the refund alone (e2e/consolidation-kill.test.ts covers sweeps under kill -9).
  const chainEnv = { ...evm.chainEnv(["BASE"]), POLL_INTERVAL_MS: "150", SWEEP_MIN_BASE: "1000000000" };
  stack = await startProcessStack(faultStackOptions({ serviceEnv: { "chain-watcher": chainEnv } }));
  const admin = apiClient(stack.gatewayUrl, { authorization: `Bearer ${ADMIN_TOKEN}` });
  expect((await admin.put("/admin/v1/rates/NGN", { onRamp: 1650, offRamp: 1600 })).status).toBe(200);
  const biz = (await admin.post("/admin/v1/businesses", { name: "Kill Co", feeBps: 0 })).body as {
    apiKey: string;
  };
  api = apiClient(stack.gatewayUrl, { "x-api-key": biz.apiKey });
  ops = apiClient(stack.gatewayUrl, await signedInOperator(stack.gatewayUrl));
}, 240_000);
afterAll(async () => {
  await stack?.close();
  await evm?.stop();
});

const status = (id: string, wanted: string) =>
  eventually(async () => {
    const r = await api.get(`/pub/v2/transaction/${id}`);
    return (r.body as { status?: string }).status === wanted ? true : undefined;
  }, 60_000);

describe("refund under kill -9", () => {
  it("one transfer of the exact amount, however the services die and the operator clicks", async () => {
    const created = await api.post("/pub/v2/offramp", {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      chain: "BASE",
      mint: evm.tokenAddress,
      amount: 12.5,
    });
    expect(created.status).toBe(201);
    const order = created.body as { id: string; address: string };
    await evm.pay(order.address, "12.5");
    await status(order.id, "COMPLETED");
    await evm.pay(order.address, "3.25");
    const exception = await eventually(async () => {
      const r = await ops.get("/console/v1/exceptions?kind=refundable-funds&status=open");
      return (r.body as { data?: ExceptionDto[] }).data?.find((e) => e.orderId === order.id);
    }, 60_000);
    const fundId = exception.fundId ?? "";
    const refund = () => ops.post(`/console/v1/funds/${fundId}/refund`, { toAddress: REFUND_TO });
    const balanceBefore = await evm.balanceOf(REFUND_TO);
    const sentBefore = await evm.sentCount(EVM_TREASURY);

    // Claimed, then chain-watcher dies at once (before, during or just after preparing the transfer).
    const first = await Promise.all([refund(), refund(), refund()]);
    expect(first.map((r) => r.status)).toEqual([202, 202, 202]);
    await stack.service("chain-watcher").kill();
    await stack.service("chain-watcher").start();

    // Signed and broadcast but not mined: chain-watcher and orders both die before the result lands.
    evm.stopMining();
    const transfers = (await stack.db("chain-watcher")).collection<{ _id: string; sent: boolean }>(
      "transfers",
    );
    await eventually(
      async () => ((await transfers.findOne({ _id: `refund:${fundId}` }))?.sent ? true : undefined),
      60_000,
    );
    await Promise.all([stack.service("chain-watcher").kill(), stack.service("orders").kill()]);
    // Clicks while orders is down are refused as unavailable, never half-done.
    const during = await refund();
    expect([503, 504]).toContain(during.status);
    evm.startMining();
    await Promise.all([stack.service("chain-watcher").start(), stack.service("orders").start()]);
    expect((await refund()).status).toBe(202);

    const funds = (await stack.db("orders")).collection<{ _id: string; outcome: string }>("received_funds");
    await eventually(
      async () => ((await funds.findOne({ _id: fundId }))?.outcome === "refunded" ? true : undefined),
      60_000,
    );
    // Time a duplicate would need to show up, then count what left the treasury.
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await evm.balanceOf(REFUND_TO)) - balanceBefore).toBe(parseUnits("3.25", 6));
    expect(await evm.sentCount(EVM_TREASURY)).toBe(sentBefore + 1);
    expect(await transfers.countDocuments({ _id: { $regex: "^refund:" } } as never)).toBe(1);
    const refunds = (await stack.db("orders")).collection<{ outbox: unknown[] }>("refunds");
    expect((await refunds.findOne({ _id: fundId } as never))?.outbox).toEqual([]);
    const closed = await ops.get("/console/v1/exceptions?kind=refundable-funds&status=resolved");
    expect((closed.body as { data: ExceptionDto[] }).data.map((e) => e.id)).toContain(exception.id);
  });
});
