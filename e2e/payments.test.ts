import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PaymentDto } from "@ramp/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, sandboxChainEnv } from "./support/tokens.ts";

let stack: Stack;
let biz: { apiKey: string };
let receiver: Server;
const received: Array<{ body: string; headers: Record<string, unknown> }> = [];

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  biz = await stack.createBusiness("Payments Co");
  // A FIAT payment's USD value (for the order bounds) comes from the currency's onramp rate.
  await stack.setRate("NGN", 1650, 1600);
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ body, headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as AddressInfo).port;
  await stack
    .client(biz.apiKey)
    .patch("/pub/v2/webhook", { paymentWebhookURL: `http://127.0.0.1:${port}/payments` });
});
afterAll(async () => {
  receiver?.close();
  await stack?.close();
});

const pay = (body: Record<string, unknown>) => stack.client(biz.apiKey).post("/pub/v2/payment", body);

describe("POST /pub/v2/payment", () => {
  it("TOKEN (the default method): 1% fee on top, a deposit address under token", async () => {
    const res = await pay({ chain: "BASE", mint: BASE_USDC, amount: 100 });
    expect(res.status).toBe(201);
    const p = PaymentDto.parse(res.body);
    expect(p).toMatchObject({ status: "AWAITING", method: "TOKEN", amount: 100, fee: 1, totalAmount: 101 });
    expect(p.token).toMatchObject({ chain: "BASE", mint: BASE_USDC, amount: 101 });
    expect(p.token?.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("FIAT: a virtual account under fiat for the total", async () => {
    const res = await pay({ method: "FIAT", currency: "NGN", amount: 5000 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ method: "FIAT", fee: 50, totalAmount: 5050, status: "AWAITING" });
    expect(res.body.fiat).toMatchObject({ currency: "NGN", amount: 5050 });
    expect(res.body.fiat.accountNumber).toMatch(/^\d{10}$/);
  });

  it("400 for a non-positive amount or a method missing its fields", async () => {
    expect((await pay({ chain: "BASE", mint: BASE_USDC, amount: 0 })).status).toBe(400);
    expect((await pay({ chain: "BASE", mint: BASE_USDC, amount: -5 })).status).toBe(400);
    const noChain = await pay({ amount: 10 });
    expect(noChain.status).toBe(400);
    expect(noChain.body.message).toEqual([
      "chain is required for method TOKEN",
      "mint is required for method TOKEN",
    ]);
    const noCurrency = await pay({ method: "FIAT", amount: 10 });
    expect(noCurrency.body.message).toEqual(["currency is required for method FIAT"]);
  });

  it("settles when funds land and posts the settled payment to paymentWebhookURL", async () => {
    for (const body of [
      { chain: "BASE", mint: BASE_USDC, amount: 20 },
      { method: "FIAT", currency: "NGN", amount: 3000 },
    ]) {
      const { body: p } = await pay(body);
      expect((await stack.client(biz.apiKey).post(`/sandbox/v2/payment/${p.id}/deposit`, {})).status).toBe(
        202,
      );
      const settled = await eventually(async () => {
        const r = await stack.client(biz.apiKey).get(`/pub/v2/payment/${p.id}`);
        return r.body.status === "SUCCESSFUL" ? r.body : undefined;
      });
      expect(settled.amount).toBe(p.amount);
      const hook = await eventually(async () => received.find((r) => JSON.parse(r.body).id === p.id));
      expect(JSON.parse(hook.body).status).toBe("SUCCESSFUL");
      expect(String(hook.headers["x-svc-signature"])).toMatch(/^v1=[0-9a-f]{64}$/);
    }
  });
});

describe("payment expiry", () => {
  it("an awaiting payment becomes EXPIRED after PAYMENT_TTL_SECONDS", async () => {
    const short = await startStack({
      services: ["pricing", "banking", "chain-watcher", "orders", "webhook-dispatcher", "gateway"],
      serviceEnv: {
        "chain-watcher": sandboxChainEnv,
        orders: { PAYMENT_TTL_SECONDS: "1", EXPIRY_SWEEP_MS: "200" },
      },
    });
    try {
      const b = await short.createBusiness("Expiring");
      await short.setRate("NGN", 1650, 1600);
      const { body: p } = await short
        .client(b.apiKey)
        .post("/pub/v2/payment", { method: "FIAT", currency: "NGN", amount: 1000 });
      expect(p.status).toBe("AWAITING");
      const expired = await eventually(async () => {
        const r = await short.client(b.apiKey).get(`/pub/v2/payment/${p.id}`);
        return r.body.status === "EXPIRED" ? r.body : undefined;
      }, 10_000);
      expect(expired.id).toBe(p.id);
      const late = await short.client(b.apiKey).post(`/sandbox/v2/payment/${p.id}/deposit`, {});
      expect(late.status).toBe(400);
    } finally {
      await short.close();
    }
  });
});
