import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, baseOfframpBody, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

/**
 * The received-funds ledger tells the truth under concurrency: of many deposits racing for one order
 * or payment, exactly one is "applied" and every other one is kept as refundable surplus; funds in
 * the wrong token or short of a payment are recorded as such, never as "applied".
 */
let stack: Stack;
let biz: { apiKey: string };
let nc: NatsConnection;
const OTHER_TOKEN = "0x4200000000000000000000000000000000000006";

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Ledger Co");
  nc = await stack.connectAs("orders");
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

async function outcomes(orderId: string, expected: number): Promise<Record<string, number>> {
  const funds = (await stack.db("orders")).collection<{ outcome: string }>("received_funds");
  const docs = await eventually(async () => {
    const all = await funds.find({ orderId }).toArray();
    return all.length === expected ? all : undefined;
  }, 30_000);
  const counts: Record<string, number> = {};
  for (const d of docs) counts[d.outcome] = (counts[d.outcome] ?? 0) + 1;
  return counts;
}

async function racingDeposits(path: string, body: unknown): Promise<number> {
  const client = stack.client(biz.apiKey);
  const results = await Promise.all(Array.from({ length: 20 }, () => client.post(path, body)));
  for (const r of results) expect([202, 400]).toContain(r.status);
  return results.filter((r) => r.status === 202).length;
}

async function finalStatus(path: string, done: string[]): Promise<string> {
  return eventually(async () => {
    const r = await stack.client(biz.apiKey).get(path);
    return done.includes(r.body.status) ? (r.body.status as string) : undefined;
  }, 30_000);
}

describe("received funds under concurrency", () => {
  it("20 racing token deposits on one offramp: one applied, the rest surplus, one payout", async () => {
    const order = await stack.client(biz.apiKey).post("/pub/v2/offramp", baseOfframpBody());
    expect(order.status).toBe(201);
    const id = order.body.id as string;
    const accepted = await racingDeposits(`/sandbox/v2/offramp/${id}/token-deposit`, { amount: 10 });
    expect(await finalStatus(`/pub/v2/transaction/${id}`, ["COMPLETED", "ERROR"])).toBe("COMPLETED");
    expect(await outcomes(id, accepted)).toEqual({
      applied: 1,
      ...(accepted > 1 ? { surplus: accepted - 1 } : {}),
    });
    expect(await (await stack.db("banking")).collection("payouts").countDocuments({ _id: id } as never)).toBe(
      1,
    );
  });

  it("20 racing fiat deposits on one onramp: one applied, the rest surplus, one delivery", async () => {
    const order = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "ETHEREUM",
      mint: ETH_USDC,
      recipient: EVM_RECIPIENT,
      amount: 10,
    });
    expect(order.status).toBe(201);
    const id = order.body.id as string;
    const accepted = await racingDeposits(`/sandbox/v2/onramp/${id}/fiat-deposit`, {});
    expect(await finalStatus(`/pub/v2/transaction/${id}`, ["COMPLETED", "ERROR"])).toBe("COMPLETED");
    expect(await outcomes(id, accepted)).toEqual({
      applied: 1,
      ...(accepted > 1 ? { surplus: accepted - 1 } : {}),
    });
    const transfers = (await stack.db("chain-watcher")).collection("transfers");
    expect(await transfers.countDocuments({ _id: id } as never)).toBe(1);
  });

  it("a payment: wrong token and short funds are kept as such; of racing full deposits one settles it", async () => {
    const created = await stack
      .client(biz.apiKey)
      .post("/pub/v2/payment", { method: "TOKEN", chain: "BASE", mint: BASE_USDC, amount: 10 });
    expect(created.status).toBe(201);
    const p = created.body as { id: string; token: { address: string } };
    const deposit = (mint: string, amount: string) =>
      callRpc(nc, Rpc.sandboxChainDeposit, { chain: "BASE", address: p.token.address, mint, amount });
    await deposit(OTHER_TOKEN, "50");
    await deposit(BASE_USDC, "5");
    expect(await outcomes(p.id, 2)).toEqual({ "wrong-token": 1, underfunded: 1 });
    expect((await stack.client(biz.apiKey).get(`/pub/v2/payment/${p.id}`)).body.status).toBe("AWAITING");

    const accepted = await racingDeposits(`/sandbox/v2/payment/${p.id}/deposit`, {});
    expect(await finalStatus(`/pub/v2/payment/${p.id}`, ["SUCCESSFUL", "EXPIRED"])).toBe("SUCCESSFUL");
    expect(await outcomes(p.id, accepted + 2)).toEqual({
      "wrong-token": 1,
      underfunded: 1,
      applied: 1,
      ...(accepted > 1 ? { surplus: accepted - 1 } : {}),
    });
  });
});
