import { Rpc, TransactionDto } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import {
  ETH_USDC,
  EVM_RECIPIENT,
  SOL_RECIPIENT,
  SOL_USDC,
  sandboxChainEnv,
  TON_USDT_FRIENDLY,
} from "./support/tokens.ts";

const WETH = "0x4200000000000000000000000000000000000006";
let stack: Stack;
let biz: { id: string; apiKey: string };
beforeAll(async () => {
  stack = await startStack({
    serviceEnv: {
      "chain-watcher": { ...sandboxChainEnv, TOKEN_USD_PRICES: `BASE:${WETH}=3000` },
      orders: { ONRAMP_UNPAID_TTL_SECONDS: "2", EXPIRY_SWEEP_MS: "300" },
    },
  });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Onramp Co");
});
afterAll(async () => stack?.close());

const onramp = (body: Record<string, unknown>) => stack.client(biz.apiKey).post("/pub/v2/onramp", body);
const base = { currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT };

describe("POST /pub/v2/onramp", () => {
  it("creates an INIT ON_RAMP order with its own virtual account; the fee is added on top", async () => {
    const res = await onramp({ ...base, amount: 10, businessUSDCFee: 1, userExternalId: "user-42" });
    expect(res.status).toBe(201);
    const tx = TransactionDto.parse(res.body);
    expect(tx).toMatchObject({
      status: "INIT",
      transactionType: "ON_RAMP",
      amount: 10,
      fiatAmount: 18150,
      fee: 1,
      rate: 1650,
      recipient: EVM_RECIPIENT,
      mint: ETH_USDC,
    });
    expect(tx.accountNumber).toMatch(/^\d{10}$/);
    expect(tx.accountName).toMatch(/^.+\(Pay NGN 18150\.00\)$/);
    expect(tx.bank).not.toBe("");
    const other = await onramp({ ...base, amount: 10 });
    expect(other.body.accountNumber).not.toBe(tx.accountNumber);
  });

  it("works from fiatAmount, rounding the token down", async () => {
    const res = await onramp({ ...base, fiatAmount: 10000 });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(6.060606);
  });

  it("400 for both or neither amount, and for addresses in another chain's format", async () => {
    expect((await onramp({ ...base, amount: 1, fiatAmount: 1000 })).status).toBe(400);
    expect((await onramp({ ...base })).status).toBe(400);
    const solOnEvm = await onramp({ ...base, recipient: SOL_RECIPIENT, amount: 5 });
    expect(solOnEvm.status).toBe(400);
    expect(solOnEvm.body.message).toEqual(["recipient must be a ETHEREUM address"]);
    const evmOnSol = await onramp({
      ...base,
      chain: "SOLANA",
      mint: SOL_USDC,
      recipient: EVM_RECIPIENT,
      amount: 5,
    });
    expect(evmOnSol.status).toBe(400);
  });

  it("accepts every TON spelling and echoes what was sent", async () => {
    const raw = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
    for (const mint of [TON_USDT_FRIENDLY, raw]) {
      const res = await onramp({
        currency: "NGN",
        chain: "TON",
        mint,
        recipient: "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p",
        amount: 5,
      });
      expect(res.status).toBe(201);
      expect(res.body.mint).toBe(mint);
    }
  });

  it("BVN: 00000000000 fails verification (400); a valid one is accepted", async () => {
    const bad = await onramp({ ...base, amount: 5, bvn: "00000000000" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("BVN could not be verified");
    const first = await onramp({ ...base, amount: 5, bvn: "22222222222" });
    const again = await onramp({ ...base, amount: 6, bvn: "22222222222" });
    const other = await onramp({ ...base, amount: 7, bvn: "33333333333" });
    expect([first.status, again.status, other.status]).toEqual([201, 201, 201]);
    // Credited to the end user: one KYC record per BVN, created on first use, never storing the BVN.
    const orders = (await stack.db("orders")).collection("orders");
    const users = await Promise.all(
      [first, again, other].map(
        async (r) => (await orders.findOne({ _id: new ObjectId(r.body.id) }))?.userId,
      ),
    );
    expect(users[0]).toBeTruthy();
    expect(users[1]).toBe(users[0]);
    expect(users[2]).not.toBe(users[0]);
    const kyc = await (await stack.db("banking")).collection("kyc_records").find().toArray();
    expect(JSON.stringify(kyc)).not.toContain("22222222222");
  });
});

describe("onramp lifecycle", () => {
  it("another token than the stablecoin is priced by the swap quote and delivered by a swap", async () => {
    const { body: tx } = await onramp({
      currency: "NGN",
      chain: "BASE",
      mint: WETH,
      recipient: EVM_RECIPIENT,
      amount: 0.01,
    });
    expect(tx).toMatchObject({ amount: 0.01, usdcAmount: 30, fiatAmount: 49500, mint: WETH });
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
    const done = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });
    expect(done.signature).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("fiat deposit → PROCESSING → token delivered → COMPLETED with a signature", async () => {
    const { body: tx } = await onramp({ ...base, amount: 7 });
    expect((await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {})).status).toBe(
      202,
    );
    const done = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });
    expect(done.signature).not.toBe("");
    expect(done.amount).toBe(7);
  });

  it("an underpaid deposit is re-priced on what arrived", async () => {
    const { body: tx } = await onramp({ ...base, amount: 10 });
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, { fiatAmount: 8250 });
    const done = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });
    expect(done.amount).toBe(5);
    expect(done.fiatAmount).toBe(8250);
  });

  it("an unpaid order is deleted after its TTL: later lookups are 404; a late transfer reaches orders as a refundable fund", async () => {
    const { body: tx } = await onramp({ ...base, amount: 5 });
    await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.status === 404 ? true : undefined;
    }, 15_000);
    // The payer pays anyway, through the rail's inbound path (the public sandbox route needs the order).
    const nc = await stack.connectAs("orders");
    const { reference } = await callRpc(nc, Rpc.sandboxFiatDeposit, { ref: tx.id });
    await nc.close();
    const kept = await (await stack.db("banking"))
      .collection("fiat_deposits")
      .findOne({ accountNumber: tx.accountNumber });
    expect(kept).toMatchObject({ status: "matched", fiatAmount: "8250.00" });
    // The account was closed with its order, yet orders hears of the transfer: a fund to refund, with
    // its exception, never money only banking knows of.
    const funds = (await stack.db("orders")).collection<{ _id: string }>("received_funds");
    const fund = await eventually(
      async () => (await funds.findOne({ _id: `fiat:${reference}` })) ?? undefined,
    );
    expect(fund).toMatchObject({ ref: tx.id, outcome: expect.stringMatching(/^(late|unmatched)$/) });
    const exceptions = (await stack.db("orders")).collection<{ _id: string }>("exceptions");
    const raised = await eventually(
      async () => (await exceptions.findOne({ fundId: `fiat:${reference}` } as never)) ?? undefined,
    );
    expect(raised).toMatchObject({ kind: "refundable-funds", amount: "8250.00", currency: "NGN" });
  });

  it("a retry with the key of an order that expired is refused (409), never a second order", async () => {
    // Called as the gateway calls orders once its own record of the key is gone.
    const nc = await stack.connectAs("gateway");
    const request = {
      businessId: biz.id,
      apiKeyId: "k",
      idempotencyKey: `expired-${Date.now()}`,
      body: { currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT, amount: "5" },
    } as const;
    const first = await callRpc(nc, Rpc.onrampCreate, request, undefined, 30_000);
    await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${first.id}`);
      return r.status === 404 ? true : undefined;
    }, 15_000);
    await expect(callRpc(nc, Rpc.onrampCreate, request, undefined, 30_000)).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await nc.close();
    const orders = (await stack.db("orders")).collection("orders");
    expect(await orders.countDocuments({ _id: new ObjectId(first.id) })).toBe(0);
  });
});
