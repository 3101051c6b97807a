import type { QuoteDto, TransactionDto } from "@ramp/contracts";
import { ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, ETH_USDC, EVM_RECIPIENT, SOL_USDC, sandboxChainEnv } from "./support/tokens.ts";

/** `POST /pub/v2/quote` locks a rate and amounts; an order given its `quoteId` shows exactly those numbers. */
let stack: Stack;
let biz: { apiKey: string };
let other: { apiKey: string };
beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  await stack.setRate("GHS", 15, 14);
  biz = await stack.createBusiness("Quoter", 100);
  other = await stack.createBusiness("Other");
});
afterAll(async () => stack?.close());

const api = () => stack.client(biz.apiKey);
const quote = async (body: Record<string, unknown>, key = biz.apiKey) => {
  const res = await stack.client(key).post("/pub/v2/quote", body);
  if (res.status !== 201) throw new Error(`quote: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as QuoteDto;
};
const onQuote = { type: "ON_RAMP", currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC };
const onOrder = { currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT };
const offQuote = { type: "OFF_RAMP", currency: "NGN", mint: SOL_USDC };
const offOrder = { accountNumber: "0123456789", bankCode: "000013", currency: "NGN", mint: SOL_USDC };
const numbers = (x: QuoteDto | TransactionDto) => ({
  rate: x.rate,
  amount: x.amount,
  fiatAmount: x.fiatAmount,
  usdcAmount: x.usdcAmount,
  fee: x.fee,
});

describe("POST /pub/v2/quote", () => {
  it("onramp by amount: the business's rate, fee on top, valid for 60 s", async () => {
    const q = await quote({ ...onQuote, amount: 10, businessUSDCFee: 1 });
    // 1650 with the business's 100 bps spread on top.
    expect(q).toMatchObject({
      ...onQuote,
      rate: 1666.5,
      amount: 10,
      fiatAmount: 18331.5,
      usdcAmount: 10,
      fee: 1,
    });
    expect(q.id).toMatch(/^[0-9a-f]{24}$/);
    expect(Date.parse(q.expiresAt) - Date.parse(q.createdAt)).toBe(60_000);
  });

  it("offramp by fiatAmount defaults to SOLANA; onramp needs its chain; exactly one amount; order bounds", async () => {
    const q = await quote({ ...offQuote, fiatAmount: 10000 });
    expect(q).toMatchObject({ type: "OFF_RAMP", chain: "SOLANA", fiatAmount: 10000, rate: 1584 });
    const bad = async (body: Record<string, unknown>) => {
      const res = await api().post("/pub/v2/quote", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      return res.body.message;
    };
    expect(await bad({ ...onQuote, chain: undefined, amount: 5 })).toEqual(["chain should not be empty"]);
    expect(await bad({ ...onQuote, amount: 5, fiatAmount: 5000 })).toEqual([
      "exactly one of amount and fiatAmount must be given",
    ]);
    expect(await bad({ ...onQuote })).toEqual(["exactly one of amount and fiatAmount must be given"]);
    expect(await bad({ ...offQuote, mint: BASE_USDC, amount: 5 })).toEqual([
      "mint must be a SOLANA token address",
    ]);
    expect(await bad({ ...onQuote, amount: 0.1 })).toBe("amount is below the minimum of 0.5 USD");
    expect(await bad({ ...onQuote, type: "SWAP", amount: 5 })).toEqual([
      "type must be one of the following values: ON_RAMP, OFF_RAMP",
    ]);
  });
});

describe("orders from a quote", () => {
  it("onramp: the order shows the quote's numbers exactly, even after the market rate moved", async () => {
    for (const amounts of [{ amount: 12.345678 }, { fiatAmount: 20000 }]) {
      const q = await quote({ ...onQuote, ...amounts, businessUSDCFee: 0.5 });
      await stack.setRate("NGN", 1700, 1550);
      const res = await api().post("/pub/v2/onramp", { ...onOrder, quoteId: q.id, userExternalId: "u-1" });
      await stack.setRate("NGN", 1650, 1600);
      expect(res.status).toBe(201);
      expect(numbers(res.body)).toEqual(numbers(q));
      expect(res.body.accountName).toContain(`(Pay NGN ${q.fiatAmount.toFixed(2)})`);
      const stored = await api().get(`/pub/v2/transaction/${res.body.id}`);
      expect(numbers(stored.body)).toEqual(numbers(q));
    }
    // Without a quote the same order is priced at the new market rate.
    await stack.setRate("NGN", 1700, 1550);
    const fresh = await api().post("/pub/v2/onramp", { ...onOrder, amount: 10 });
    await stack.setRate("NGN", 1650, 1600);
    expect(fresh.body.rate).toBe(1717);
  });

  it("offramp: amount and fiatAmount quotes, chain left to its default", async () => {
    for (const amounts of [{ amount: 25 }, { fiatAmount: 15000 }]) {
      const q = await quote({ ...offQuote, ...amounts });
      await stack.setRate("NGN", 1650, 1400);
      const res = await api().post("/pub/v2/offramp", { ...offOrder, quoteId: q.id });
      await stack.setRate("NGN", 1650, 1600);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ chain: "SOLANA", transactionType: "OFF_RAMP", ...numbers(q) });
    }
  });

  it("refuses unknown, foreign, expired, mismatched, used and amount-carrying quotes", async () => {
    const expectError = async (
      path: string,
      body: Record<string, unknown>,
      status: number,
      message: string | string[],
    ) => {
      const res = await api().post(path, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.message).toEqual(message);
    };
    const q = await quote({ ...onQuote, amount: 10 });
    await expectError(
      "/pub/v2/onramp",
      { ...onOrder, quoteId: new ObjectId().toHexString() },
      404,
      "Quote not found",
    );
    await expectError("/pub/v2/onramp", { ...onOrder, quoteId: "not-an-id" }, 404, "Quote not found");
    const foreign = await quote({ ...onQuote, amount: 10 }, other.apiKey);
    await expectError("/pub/v2/onramp", { ...onOrder, quoteId: foreign.id }, 404, "Quote not found");

    const mismatch = "Quote does not match the order";
    await expectError(
      "/pub/v2/offramp",
      { ...offOrder, chain: "ETHEREUM", mint: ETH_USDC, quoteId: q.id },
      400,
      mismatch,
    );
    await expectError("/pub/v2/onramp", { ...onOrder, currency: "GHS", quoteId: q.id }, 400, mismatch);
    await expectError(
      "/pub/v2/onramp",
      { ...onOrder, chain: "BASE", mint: ETH_USDC, quoteId: q.id },
      400,
      mismatch,
    );
    await expectError("/pub/v2/onramp", { ...onOrder, mint: BASE_USDC, quoteId: q.id }, 400, mismatch);
    await expectError("/pub/v2/onramp", { ...onOrder, businessUSDCFee: 2, quoteId: q.id }, 400, mismatch);
    await expectError("/pub/v2/onramp", { ...onOrder, amount: 10, quoteId: q.id }, 400, [
      "quoteId must not be given together with amount or fiatAmount",
    ]);
    await expectError("/pub/v2/offramp", { ...offOrder, fiatAmount: 1000, quoteId: q.id }, 400, [
      "quoteId must not be given together with amount or fiatAmount",
    ]);

    // The same token in another spelling is the same token; the fee the quote has may be repeated.
    const ok = await api().post("/pub/v2/onramp", {
      ...onOrder,
      mint: ETH_USDC.toLowerCase(),
      businessUSDCFee: 0,
      quoteId: q.id,
    });
    expect(ok.status).toBe(201);
    await expectError("/pub/v2/onramp", { ...onOrder, quoteId: q.id }, 400, "Quote already used");

    const stale = await quote({ ...onQuote, amount: 10 });
    await (await stack.db("orders"))
      .collection("quotes")
      .updateOne({ _id: new ObjectId(stale.id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    await expectError("/pub/v2/onramp", { ...onOrder, quoteId: stale.id }, 400, "Quote expired");
  });

  it("one quote used by many orders at once makes exactly one order", async () => {
    const q = await quote({ ...offQuote, amount: 20 });
    const before = (await api().get("/pub/v2/transactions?limit=100")).body.data.length;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => api().post("/pub/v2/offramp", { ...offOrder, quoteId: q.id })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body.message).toBe("Quote already used");
    const after = (await api().get("/pub/v2/transactions?limit=100")).body.data.length;
    expect(after - before).toBe(1);
  });
});
