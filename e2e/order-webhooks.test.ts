import { metrics } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";
import { type Receiver, receiver } from "./support/webhook-receiver.ts";

/** Webhook deliveries through real orders: every status change of an onramp and an offramp, signed and in order. */
let stack: Stack;
let keyHook: Receiver;
let orderHook: Receiver;
let biz: { apiKey: string; webhookSecret: string };

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Hooks Co");
  keyHook = await receiver();
  orderHook = await receiver();
  keyHook.setSecret(biz.webhookSecret);
  orderHook.setSecret(biz.webhookSecret);
  const patched = await stack
    .client(biz.apiKey)
    .patch("/pub/v2/webhook", { rampWebhookURL: `${keyHook.url}/ramp` });
  expect(patched.body.webhookSecret).toBe(biz.webhookSecret);
});
afterAll(async () => {
  await keyHook?.close();
  await orderHook?.close();
  await stack?.close();
});

const deliveriesOf = (r: Receiver, id: string) => r.got.filter((g) => g.body.id === id);

describe("ramp order updates", () => {
  it("onramp: PROCESSING then COMPLETED reach the key's rampWebhookURL, signed, each the whole order", async () => {
    const { body: tx } = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "ETHEREUM",
      mint: ETH_USDC,
      recipient: EVM_RECIPIENT,
      amount: 3,
    });
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
    const got = await eventually(async () => {
      const d = deliveriesOf(keyHook, tx.id);
      return d.length >= 2 ? d : undefined;
    });
    expect(got.map((d) => d.body.status)).toEqual(["PROCESSING", "COMPLETED"]);
    expect(got.every((d) => d.verified === true)).toBe(true);
    const final = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
    expect(got[1]?.body).toEqual(final.body);
    expect(got[1]?.headers["content-type"]).toMatch(/^application\/json/);
    // Operators see the attempts too (services in this process share one registry).
    expect(await metrics.metrics()).toMatch(
      /ramp_webhook_attempts_total\{outcome="delivered",status="2xx"\} [1-9]/,
    );
  });

  it("offramp: the order's own webhookURL wins over the key's, every change delivered in order", async () => {
    const { body: tx } = await stack.client(biz.apiKey).post("/pub/v2/offramp", {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      amount: 4,
      webhookURL: `${orderHook.url}/orders`,
    });
    await stack.client(biz.apiKey).post(`/sandbox/v2/offramp/${tx.id}/token-deposit`, {});
    const got = await eventually(async () => {
      const d = deliveriesOf(orderHook, tx.id);
      return d.length >= 2 ? d : undefined;
    });
    expect(got.map((d) => d.body.status)).toEqual(["PROCESSING", "COMPLETED"]);
    expect(got.every((d) => d.verified === true)).toBe(true);
    expect(deliveriesOf(keyHook, tx.id)).toEqual([]);
  });
});
