import { Rpc, TransactionDto } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, SOL_USDC, sandboxChainEnv } from "./support/tokens.ts";

let stack: Stack;
let biz: { apiKey: string };
beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Offramp Co");
});
afterAll(async () => stack?.close());

const offramp = (body: Record<string, unknown>) => stack.client(biz.apiKey).post("/pub/v2/offramp", body);
const base = {
  accountNumber: "0123456789",
  bankCode: "000013",
  currency: "NGN",
  mint: BASE_USDC,
  chain: "BASE",
};

async function ordersCount(): Promise<number> {
  return await (await stack.db("orders")).collection("orders").countDocuments();
}

describe("POST /pub/v2/offramp", () => {
  it("creates an INIT OFF_RAMP order priced at the offramp rate with the bank's account name", async () => {
    const res = await offramp({ ...base, amount: 10, businessUSDCFee: 0.5 });
    expect(res.status).toBe(201);
    const tx = TransactionDto.parse(res.body);
    expect(tx).toMatchObject({
      status: "INIT",
      transactionType: "OFF_RAMP",
      chain: "BASE",
      mint: BASE_USDC,
      amount: 10,
      fiatAmount: 15200,
      rate: 1600,
      fee: 0.5,
      currency: "NGN",
      signature: "",
      sender: "",
    });
    expect(tx.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(tx.accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
    expect(tx.createdAt).toMatch(/Z$/);
  });

  it("prices each order at the market rate as it is now, one changed a moment ago included", async () => {
    expect((await offramp({ ...base, amount: 10 })).body.rate).toBe(1600);
    await stack.setRate("NGN", 1650, 1500);
    try {
      // Orders keeps pricing's answers; pricing's change feed drops the old one within milliseconds.
      const repriced = await eventually(
        async () => {
          const res = await offramp({ ...base, amount: 10 });
          return res.body.rate === 1500 ? res.body : undefined;
        },
        2_000,
        20,
      );
      expect(repriced.fiatAmount).toBe(15000);
    } finally {
      await stack.setRate("NGN", 1650, 1600);
      await eventually(
        async () => ((await offramp({ ...base, amount: 10 })).body.rate === 1600 ? true : undefined),
        2_000,
        20,
      );
    }
  });

  it("works backwards from fiatAmount, rounding the token amount up", async () => {
    const res = await offramp({ ...base, fiatAmount: 10000 });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(6.25);
    expect(res.body.fiatAmount).toBe(10000);
  });

  it("defaults to SOLANA and gives a Solana address; an EVM mint with the default chain is 400", async () => {
    const sol = await offramp({
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      mint: SOL_USDC,
      amount: 5,
    });
    expect(sol.status).toBe(201);
    expect(sol.body.chain).toBe("SOLANA");
    expect(sol.body.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const evmOnSol = await offramp({
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      mint: BASE_USDC,
      amount: 5,
    });
    expect(evmOnSol.status).toBe(400);
    expect(evmOnSol.body.message).toEqual(["mint must be a SOLANA token address"]);
  });

  it("400 for both or neither amount; 404 for an unknown bank; 400 for an unresolvable account, leaving nothing behind", async () => {
    const before = await ordersCount();
    expect((await offramp({ ...base, amount: 1, fiatAmount: 1000 })).status).toBe(400);
    expect((await offramp({ ...base })).status).toBe(400);
    const unknownBank = await offramp({ ...base, bankCode: "424242", amount: 5 });
    expect(unknownBank.status).toBe(404);
    expect(unknownBank.body.message).toBe("Bank with code 424242 not found");
    const unresolved = await offramp({ ...base, accountNumber: "9990000000", amount: 5 });
    expect(unresolved.status).toBe(400);
    expect(unresolved.body.message).toBe("Account could not be resolved");
    expect(await ordersCount()).toBe(before);
  });

  it("400 when BVN verification fails; 201 with a valid BVN", async () => {
    expect((await offramp({ ...base, amount: 5, bvn: "00000000000" })).status).toBe(400);
    expect((await offramp({ ...base, amount: 5, bvn: "12345678901" })).status).toBe(201);
  });
});

describe("offramp lifecycle through the sandbox deposit", () => {
  it("deposit → PROCESSING (signature, sender) → payout → COMPLETED", async () => {
    const { body: tx } = await offramp({ ...base, amount: 12 });
    const dep = await stack.client(biz.apiKey).post(`/sandbox/v2/offramp/${tx.id}/token-deposit`, {});
    expect(dep.status).toBe(202);
    const done = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });
    expect(done.signature).not.toBe("");
    expect(done.fiatAmount).toBe(19200);
  });

  it("a deposit of another size is re-priced on what landed", async () => {
    const { body: tx } = await offramp({ ...base, amount: 12 });
    await stack.client(biz.apiKey).post(`/sandbox/v2/offramp/${tx.id}/token-deposit`, { amount: 10 });
    const done = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });
    expect(done.amount).toBe(10);
    expect(done.fiatAmount).toBe(16000);
  });

  it("a deposit of another token is recorded and does not move the order", async () => {
    const { body: tx } = await offramp({ ...base, amount: 12 });
    const nc = await stack.connectAs("orders");
    const other = "0x4200000000000000000000000000000000000006";
    const { reference } = await callRpc(nc, Rpc.sandboxChainDeposit, {
      chain: "BASE",
      address: tx.address,
      mint: other,
      amount: "12",
    });
    await nc.close();
    const funds = (await stack.db("orders")).collection("received_funds");
    const kept = await eventually(async () => (await funds.findOne({ orderId: tx.id })) ?? undefined);
    expect(kept).toMatchObject({ outcome: "wrong-token", detail: { txId: reference, mint: other } });
    expect((await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`)).body.status).toBe("INIT");
  });

  it("a payout the bank rejects (888…) ends in ERROR", async () => {
    const { body: tx } = await offramp({ ...base, accountNumber: "8880000001", amount: 5 });
    await stack.client(biz.apiKey).post(`/sandbox/v2/offramp/${tx.id}/token-deposit`, {});
    const final = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.body.status === "ERROR" ? r.body : undefined;
    });
    expect(final.status).toBe("ERROR");
  });
});

describe("GET /pub/v2/transaction/{id}", () => {
  it("400 for an invalid id, 404 for an unknown one or another business's", async () => {
    const other = await stack.createBusiness("Other");
    const { body: tx } = await offramp({ ...base, amount: 5 });
    expect((await stack.client(biz.apiKey).get("/pub/v2/transaction/not-an-id")).status).toBe(400);
    expect((await stack.client(biz.apiKey).get("/pub/v2/transaction/0123456789abcdef01234567")).status).toBe(
      404,
    );
    expect((await stack.client(other.apiKey).get(`/pub/v2/transaction/${tx.id}`)).status).toBe(404);
    const mine = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual(tx);
  });
});
