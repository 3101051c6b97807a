import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

/** An 18-decimal sandbox token priced so that a 1% fee on a small payment is below 0.000001. */
const BASE_PRICEY = "0x4200000000000000000000000000000000000006";
const TOO_BIG = "must be less than 1000000000000000000000";

let stack: Stack;
let nc: NatsConnection;
let apiKey: string;
let onrampId: string;
let offrampId: string;

beforeAll(async () => {
  stack = await startStack({
    env: { WEBHOOK_ALLOW_PRIVATE: "false" },
    serviceEnv: {
      "chain-watcher": { ...sandboxChainEnv, TOKEN_USD_PRICES: `BASE:${BASE_PRICEY}=100000` },
    },
  });
  // Deposits arrive the way orders would ask banking for them.
  nc = await stack.connectAs("orders");
  await stack.setRate("NGN", 1650, 1600);
  apiKey = (await stack.createBusiness("Edge")).apiKey;
  const c = stack.client(apiKey);
  const on = await c.post("/pub/v2/onramp", {
    amount: 10,
    currency: "NGN",
    chain: "BASE",
    mint: BASE_USDC,
    recipient: EVM_RECIPIENT,
  });
  const off = await c.post("/pub/v2/offramp", {
    amount: 10,
    currency: "NGN",
    chain: "BASE",
    mint: BASE_USDC,
    accountNumber: "0123456789",
    bankCode: "000013",
  });
  expect([on.status, off.status]).toEqual([201, 201]);
  onrampId = on.body.id;
  offrampId = off.body.id;
});
afterAll(async () => {
  await nc?.drain();
  await stack?.close();
});

/** Sends `text` byte for byte, so numbers reach the gateway exactly as written. */
const raw = (method: string, path: string, text: string, headers: Record<string, string> = {}) =>
  stack.request(method, path, { body: text, headers: { "x-api-key": apiKey, ...headers } });

describe("JSON numbers: one decimal policy on every route", () => {
  it("sandbox deposits: 1e-7 and 1e21 are 400s naming the field, never 503s", async () => {
    const fiat = `/sandbox/v2/onramp/${onrampId}/fiat-deposit`;
    const token = `/sandbox/v2/offramp/${offrampId}/token-deposit`;
    for (const [path, text, message] of [
      [fiat, '{"fiatAmount":1e-7}', "fiatAmount must have at most 2 decimal places"],
      [fiat, '{"fiatAmount":1e21}', `fiatAmount ${TOO_BIG}`],
      [token, '{"amount":1e-7}', "amount must be at least 0.000001"],
      [token, '{"amount":1e21}', `amount ${TOO_BIG}`],
      [token, '{"amount":0.0000001}', "amount must be at least 0.000001"],
      [token, '{"amount":1.0000001}', "amount must have at most 6 decimal places"],
      [token, '{"amount":"5"}', "amount must be a number"],
    ] as const) {
      const res = await raw("POST", path, text);
      expect({ text, status: res.status, body: res.body }).toMatchObject({
        status: 400,
        body: { statusCode: 400, error: "Bad Request" },
      });
      expect([res.body.message].flat()).toEqual([message]);
    }
    expect(await stack.fundsRecorded(offrampId)).toBe(0);
  });

  it("admin rates: 1e-7 and 1e21 are 400s naming the field, and nothing changes", async () => {
    const put = (text: string) =>
      stack.request("PUT", "/admin/v1/rates/ZAR", {
        body: text,
        headers: { authorization: "Bearer test-admin-token-0123456789" },
      });
    expect((await put('{"onRamp":1e-7,"offRamp":18}')).body.message).toEqual([
      "onRamp must be at least 0.000001",
    ]);
    expect((await put('{"onRamp":18,"offRamp":1e21}')).body.message).toEqual([`offRamp ${TOO_BIG}`]);
    expect((await put('{"onRamp":18.123456789,"offRamp":18}')).body.message).toEqual([
      "onRamp must have at most 8 decimal places",
    ]);
    expect((await stack.client(apiKey).get("/pub/v2/rate?currency=ZAR")).status).toBe(404);
    const ok = await put('{"onRamp":18.60000001,"offRamp":1.85e1}');
    expect(ok.status).toBe(200);
    expect(ok.body.onRampRate.rate).toBe(18.60000001);
    expect(ok.body.offRampRate.rate).toBe(18.5);
  });

  it("payments: exponent-only amounts are 400s, and amounts have the order bounds", async () => {
    const pay = (text: string) => raw("POST", "/pub/v2/payment", text);
    const token = `"chain":"BASE","mint":"${BASE_USDC}"`;
    for (const [text, message] of [
      [`{${token},"amount":1e300}`, `amount ${TOO_BIG}`],
      [`{${token},"amount":1e21}`, `amount ${TOO_BIG}`],
      [`{${token},"amount":20000}`, "amount is above the maximum of 10000 USD"],
      [`{${token},"amount":0.1}`, "amount is below the minimum of 0.5 USD"],
      [`{${token},"amount":1.0000001}`, "amount must have at most 6 decimal places"],
      ['{"method":"FIAT","currency":"NGN","amount":0.001}', "amount must have at most 2 decimal places"],
      ['{"method":"FIAT","currency":"NGN","amount":1}', "amount is below the minimum of 0.5 USD"],
    ] as const) {
      const res = await pay(text);
      expect({ text, status: res.status }).toEqual({ text, status: 400 });
      expect([res.body.message].flat()).toEqual([message]);
    }
  });

  it("onramp: businessUSDCFee must be below the order's USD value", async () => {
    const order = `"amount":10,"currency":"NGN","chain":"BASE","mint":"${BASE_USDC}","recipient":"${EVM_RECIPIENT}"`;
    const huge = await raw("POST", "/pub/v2/onramp", `{${order},"businessUSDCFee":1e300}`);
    expect(huge.body.message).toEqual([`businessUSDCFee ${TOO_BIG}`]);
    const tooBig = await raw("POST", "/pub/v2/onramp", `{${order},"businessUSDCFee":10}`);
    expect(tooBig.body).toMatchObject({
      statusCode: 400,
      message: "businessUSDCFee must be below the order's USD value",
    });
    const fine = await raw("POST", "/pub/v2/onramp", `{${order},"businessUSDCFee":0.5}`);
    expect(fine.status).toBe(201);
    expect(fine.body.fiatAmount).toBe(17325);
  });

  it("replies write numbers as plain decimals, never exponent notation", async () => {
    const res = await raw(
      "POST",
      "/pub/v2/payment",
      `{"chain":"BASE","mint":"${BASE_PRICEY}","amount":0.00001}`,
    );
    expect(res.status).toBe(201);
    const reply = await fetch(`${stack.url}/pub/v2/payment/${res.body.id}`, {
      headers: { "x-api-key": apiKey },
    });
    expect(reply.status).toBe(200);
    const replyText = await reply.text();
    expect(replyText).toContain('"fee":0.0000001,');
    expect(replyText).toContain('"totalAmount":0.0000101,');
    expect(replyText).not.toMatch(/:-?\d+(\.\d+)?[eE]/);
  });

  it("a FIAT payment's told amount is exactly what settles it", async () => {
    const res = await raw("POST", "/pub/v2/payment", '{"method":"FIAT","currency":"NGN","amount":1234.56}');
    expect(res.status).toBe(201);
    const told = res.body.fiat.amount;
    expect({ fee: res.body.fee, total: res.body.totalAmount, told }).toEqual({
      fee: 12.35,
      total: 1246.91,
      told: 1246.91,
    });
    expect(res.body.fiat.accountName).toContain("(Pay NGN 1246.91)");
    await callRpc(nc, Rpc.sandboxFiatDeposit, { ref: res.body.id, fiatAmount: "1246.91" });
    await eventually(async () => {
      const p = await stack.client(apiKey).get(`/pub/v2/payment/${res.body.id}`);
      return p.body.status === "SUCCESSFUL" || undefined;
    });
  });
});

describe("request bodies", () => {
  it("over 64 KiB → 413, by Content-Length or streamed, before the route runs", async () => {
    const big = JSON.stringify({ reference: "x".repeat(65 * 1024) });
    const res = await raw("POST", "/pub/v2/payment", big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      statusCode: 413,
      message: "Request body too large",
      error: "Payload Too Large",
    });

    const chunks = [new TextEncoder().encode(big)];
    const streamed = await fetch(`${stack.url}/pub/v2/payment`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: new ReadableStream({
        pull(ctrl) {
          const next = chunks.shift();
          if (next) ctrl.enqueue(next);
          else ctrl.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toMatchObject({ message: "Request body too large" });
  });

  it("a body that is not JSON where JSON is expected → 415", async () => {
    const res = await raw("POST", "/pub/v2/payment", '{"amount":10}', { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      statusCode: 415,
      message: "Content-Type must be application/json",
      error: "Unsupported Media Type",
    });
  });

  it("an empty body where every field is optional means {}", async () => {
    const res = await fetch(`${stack.url}/sandbox/v2/onramp/${onrampId}/fiat-deposit`, {
      method: "POST",
      headers: { "x-api-key": apiKey },
    });
    expect(res.status).toBe(202);
    await eventually(async () => {
      const order = await stack.client(apiKey).get(`/pub/v2/transaction/${onrampId}`);
      return order.body.status !== "INIT" || undefined;
    });
  });
});

describe("webhook URLs are checked when saved (WEBHOOK_ALLOW_PRIVATE=false)", () => {
  const NOT_PUBLIC = "webhook URL must be a public https URL";

  it("PATCH refuses private, loopback, link-local and mapped literals and plain http", async () => {
    const c = stack.client(apiKey);
    for (const url of [
      "https://10.0.0.1/hook",
      "https://127.0.0.1:8443/hook",
      "https://169.254.169.254/latest",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::127.0.0.1]/hook",
      "http://hooks.example.com/hook",
    ]) {
      const res = await c.patch("/pub/v2/webhook", { rampWebhookURL: url });
      expect({ url, status: res.status, message: res.body.message }).toEqual({
        url,
        status: 400,
        message: NOT_PUBLIC,
      });
    }
    const long = await c.patch("/pub/v2/webhook", {
      paymentWebhookURL: `https://a.example.com/${"x".repeat(2048)}`,
    });
    expect(long.body.message).toEqual(["paymentWebhookURL must be at most 2048 characters"]);
    const ok = await c.patch("/pub/v2/webhook", { rampWebhookURL: "https://hooks.example.com/ramp" });
    expect(ok.status).toBe(200);
  });

  it("an order's webhookURL: javascript: and file: are not URLs, private ones are not public", async () => {
    const order = {
      amount: 10,
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      recipient: EVM_RECIPIENT,
    };
    const c = stack.client(apiKey);
    for (const webhookURL of ["javascript:alert(1)", "file:///etc/passwd"]) {
      const res = await c.post("/pub/v2/onramp", { ...order, webhookURL });
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual(["webhookURL must be a URL address"]);
    }
    const priv = await c.post("/pub/v2/onramp", { ...order, webhookURL: "https://192.168.1.10/hook" });
    expect(priv.body).toMatchObject({ statusCode: 400, message: NOT_PUBLIC });
    const ok = await c.post("/pub/v2/onramp", { ...order, webhookURL: "https://hooks.example.com/o" });
    expect(ok.status).toBe(201);
  });
});
