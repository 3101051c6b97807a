import type { PaymentDto, TransactionDto } from "@ramp/contracts";
import { createRampClient, RampApiError, type RampClient, verifyWebhook } from "@ramp/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, EVM_RECIPIENT, SOL_USDC, sandboxChainEnv } from "./support/tokens.ts";
import { type Receiver, receiver } from "./support/webhook-receiver.ts";

/**
 * An integrator's whole sandbox day through @ramp/sdk alone: orders created, funded through the
 * sandbox, polled to COMPLETED, and every real delivery from the dispatcher accepted by verifyWebhook.
 */
let stack: Stack;
let hook: Receiver;
let sdk: RampClient;
let secret = "";

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  const biz = await stack.createBusiness("SDK Co");
  sdk = createRampClient({ apiKey: biz.apiKey, baseUrl: stack.url });
  hook = await receiver();
  const cfg = await sdk.webhooks.update({
    rampWebhookURL: `${hook.url}/ramp`,
    paymentWebhookURL: `${hook.url}/payments`,
  });
  secret = cfg.webhookSecret;
  expect(secret).toBe(biz.webhookSecret);
});
afterAll(async () => {
  await hook?.close();
  await stack?.close();
});

/** Every delivery about `id`, verified from its raw bytes and headers as a receiver would. */
function verifiedDeliveries(id: string) {
  return hook.got
    .map((g) => verifyWebhook({ rawBody: g.raw, headers: g.headers, secret }))
    .filter((p) => p.id === id);
}

async function completed(id: string): Promise<TransactionDto> {
  return eventually(async () => {
    const tx = await sdk.transactions.get(id);
    return tx.status === "COMPLETED" ? tx : undefined;
  }, 30_000);
}

async function rampUpdates(id: string, count: number): Promise<TransactionDto[]> {
  return eventually(async () => {
    const got = verifiedDeliveries(id).filter((p): p is TransactionDto => "transactionType" in p);
    return got.length >= count ? got : undefined;
  }, 30_000);
}

describe("@ramp/sdk against the running system", () => {
  it("onramp: rate, create, sandbox fiat deposit, poll to COMPLETED, signed updates verified", async () => {
    const rates = await sdk.rates.get({ currency: "NGN" });
    expect(rates.onRampRate.rate).toBe(1650);
    const tx = await sdk.onramp.create({
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      recipient: EVM_RECIPIENT,
      amount: 10,
    });
    expect(tx).toMatchObject({ status: "INIT", transactionType: "ON_RAMP", fiatAmount: 16500 });
    expect(tx.accountNumber).not.toBe("");

    expect(await sdk.sandbox.onrampFiatDeposit(tx.id)).toMatchObject({ accepted: true });
    const done = await completed(tx.id);
    expect(done.signature).not.toBe("");

    const updates = await rampUpdates(tx.id, 2);
    expect(updates.map((u) => u.status)).toEqual(["PROCESSING", "COMPLETED"]);
    expect(updates[1]).toEqual(done);

    // The same order through the list, the iterator and the export; a quote's numbers are an order's.
    expect((await sdk.transactions.list({ type: "ON_RAMP", limit: 5 })).data.map((t) => t.id)).toContain(
      tx.id,
    );
    const ids: string[] = [];
    for await (const t of sdk.transactions.iterate({ type: "ON_RAMP" })) ids.push(t.id);
    expect(ids).toContain(tx.id);
    const csv = await sdk.transactions.export({ type: "ON_RAMP" });
    expect(csv.split("\r\n")[0]).toMatch(/^id,address,/);
    expect(csv).toContain(tx.id);
    const quote = await sdk.quotes.create({
      type: "ON_RAMP",
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      amount: 10,
    });
    const quoted = await sdk.onramp.create({
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      recipient: EVM_RECIPIENT,
      quoteId: quote.id,
    });
    expect({ amount: quoted.amount, fiatAmount: quoted.fiatAmount }).toEqual({
      amount: quote.amount,
      fiatAmount: quote.fiatAmount,
    });
  });

  it("offramp: register and look up the bank account, create on SOLANA, token deposit, COMPLETED", async () => {
    const account = await sdk.bankAccounts.register({ bankCode: "000013", accountNumber: "0123456789" });
    expect(await sdk.bankAccounts.lookup({ accountNumber: "0123456789" })).toEqual(account);
    expect(await sdk.bankAccounts.lookup({ address: account.address })).toEqual(account);
    const [gtb] = await sdk.banks.list({ code: "000013" });
    expect(account.bank).toBe(gtb?.name);

    const tx = await sdk.offramp.create({
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      chain: "SOLANA",
      mint: SOL_USDC,
      amount: 5,
    });
    expect(tx).toMatchObject({ status: "INIT", transactionType: "OFF_RAMP", fiatAmount: 8000 });
    expect(tx.accountName).toBe(account.accountName);

    await sdk.sandbox.offrampTokenDeposit(tx.id);
    const done = await completed(tx.id);
    const updates = await rampUpdates(tx.id, 2);
    expect(updates.map((u) => u.status)).toEqual(["PROCESSING", "COMPLETED"]);
    expect(updates[1]).toEqual(done);
  });

  it("payment: create, sandbox deposit, the settled payment arrives signed; the log lists and redelivers it", async () => {
    const p = await sdk.payments.create({ method: "TOKEN", chain: "BASE", mint: BASE_USDC, amount: 100 });
    expect(p).toMatchObject({ status: "AWAITING", fee: 1, totalAmount: 101 });
    await sdk.sandbox.paymentDeposit(p.id);
    const settled = await eventually(async () => {
      const got = verifiedDeliveries(p.id).filter((x): x is PaymentDto => "method" in x);
      return got[0];
    }, 30_000);
    expect(settled.status).toBe("SUCCESSFUL");
    expect(await sdk.payments.get(p.id)).toEqual(settled);

    const log = await sdk.webhooks.deliveries({ limit: 50 });
    const attempt = log.find((a) => a.subjectId === p.id);
    expect(attempt).toMatchObject({ type: "PAYMENT", delivered: true });
    const before = verifiedDeliveries(p.id).length;
    const again = await sdk.webhooks.redeliver(attempt?.deliveryId ?? "");
    expect(again).toMatchObject({ delivered: true, type: "PAYMENT", error: null });
    expect(verifiedDeliveries(p.id)).toHaveLength(before + 1);
  });

  it("webhook test: a signed sample the SDK verifies", async () => {
    const before = hook.got.length;
    const result = await sdk.webhooks.test({ type: "RAMP" });
    expect(result).toMatchObject({ delivered: true, statusCode: 200, error: null });
    const sample = hook.got[before];
    if (!sample) throw new Error("no sample arrived");
    expect("transactionType" in verifyWebhook({ rawBody: sample.raw, headers: sample.headers, secret })).toBe(
      true,
    );
  });

  it("maps refusals to RampApiError with every message, and a wrong key to 401", async () => {
    const invalid = await sdk.onramp
      .create({ currency: "NGN", chain: "BASE", mint: SOL_USDC, recipient: EVM_RECIPIENT })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(RampApiError);
    expect(invalid).toMatchObject({ statusCode: 400, error: "Bad Request" });
    expect((invalid as RampApiError).messages).toEqual(
      expect.arrayContaining(["mint must be a BASE token address"]),
    );
    const missing = await sdk.transactions.get("0123456789abcdef01234567").catch((e: unknown) => e);
    expect(missing).toMatchObject({ statusCode: 404 });
    const stranger = createRampClient({ apiKey: "not-a-key", baseUrl: stack.url });
    const denied = await stranger.rates.get({ currency: "NGN" }).catch((e: unknown) => e);
    expect(denied).toMatchObject({ statusCode: 401, messages: ["Invalid API key"] });
    expect((await stranger.banks.listPublic({ name: "guaranty" })).some((b) => b.code === "000013")).toBe(
      true,
    );
  });
});
