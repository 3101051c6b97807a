import {
  PaymentDto as PaymentSchema,
  TransactionDto as TransactionSchema,
  WebhookTestResultDto,
} from "@ramp/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack.ts";
import { type Receiver, receiver } from "./support/webhook-receiver.ts";

describe("webhook config and test sends through the gateway", () => {
  let stack: Stack;
  let r: Receiver;
  let failing: Receiver;
  beforeAll(async () => {
    stack = await startStack({ services: ["pricing", "webhook-dispatcher", "gateway"] });
    r = await receiver();
    failing = await receiver(() => ({ status: 500 }));
  });
  afterAll(async () => {
    await stack?.close();
    await r?.close();
    await failing?.close();
  });

  it("changes only the fields sent, clears with an empty string, keeps the secret stable", async () => {
    const biz = await stack.createBusiness("Hooks");
    expect(biz.webhookSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const c = stack.client(biz.apiKey);
    const a = await c.patch("/pub/v2/webhook", { rampWebhookURL: "https://ramp.example.com/hook" });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      rampWebhookURL: "https://ramp.example.com/hook",
      paymentWebhookURL: null,
      webhookSecret: biz.webhookSecret,
    });
    const b = await c.patch("/pub/v2/webhook", { paymentWebhookURL: "https://pay.example.com/hook" });
    expect(b.body).toMatchObject({
      rampWebhookURL: "https://ramp.example.com/hook",
      paymentWebhookURL: "https://pay.example.com/hook",
      webhookSecret: biz.webhookSecret,
    });
    const cleared = await c.patch("/pub/v2/webhook", { rampWebhookURL: "" });
    expect(cleared.body).toEqual({
      rampWebhookURL: null,
      paymentWebhookURL: "https://pay.example.com/hook",
      webhookSecret: biz.webhookSecret,
    });
  });

  it("answers 400 for neither URL, an invalid URL, or an unknown property", async () => {
    const biz = await stack.createBusiness("Bad hooks");
    const c = stack.client(biz.apiKey);
    const none = await c.patch("/pub/v2/webhook", {});
    expect(none.status).toBe(400);
    expect(none.body.error).toBe("Bad Request");
    const bad = await c.patch("/pub/v2/webhook", { rampWebhookURL: "not a url" });
    expect(bad.status).toBe(400);
    expect(Array.isArray(bad.body.message)).toBe(true);
    expect(bad.body.message.join(" ")).toMatch(/rampWebhookURL/);
    const extra = await c.patch("/pub/v2/webhook", { rampWebhookURL: "https://x.example.com", foo: 1 });
    expect(extra.status).toBe(400);
  });

  it("test send: 400 without a URL, delivered:false with the reason on a 500, delivered:true and verifiable otherwise", async () => {
    const biz = await stack.createBusiness("Tester");
    const c = stack.client(biz.apiKey);
    const missing = await c.post("/pub/v2/webhook/test");
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("No rampWebhookURL configured for this API key");
    const noPay = await c.post("/pub/v2/webhook/test?type=PAYMENT");
    expect(noPay.status).toBe(400);

    await c.patch("/pub/v2/webhook", { rampWebhookURL: `${failing.url}/ramp` });
    const fail = await c.post("/pub/v2/webhook/test");
    expect(fail.status).toBe(200);
    expect(WebhookTestResultDto.parse(fail.body)).toMatchObject({
      delivered: false,
      type: "RAMP",
      statusCode: 500,
      error: "Receiver answered 500",
    });

    r.setSecret(biz.webhookSecret);
    await c.patch("/pub/v2/webhook", { rampWebhookURL: `${r.url}/ramp`, paymentWebhookURL: `${r.url}/pay` });
    const ok = await c.post("/pub/v2/webhook/test");
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      delivered: true,
      type: "RAMP",
      url: `${r.url}/ramp`,
      statusCode: 200,
      error: null,
    });
    const pay = await c.post("/pub/v2/webhook/test?type=PAYMENT");
    expect(pay.body).toMatchObject({ delivered: true, type: "PAYMENT", url: `${r.url}/pay` });
    expect(r.got).toHaveLength(2);
    expect(r.got.every((g) => g.verified === true)).toBe(true);
    expect(TransactionSchema.parse(r.got[0]?.body).status).toBe("COMPLETED");
    expect(PaymentSchema.parse(r.got[1]?.body).status).toBe("SUCCESSFUL");
  });
});
