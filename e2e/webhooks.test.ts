import type { NatsConnection } from "@nats-io/transport-node";
import type { OrderStatus, TransactionDto } from "@ramp/contracts";
import {
  Events,
  PaymentDto as PaymentSchema,
  Rpc,
  sampleTransaction,
  WebhookTestResultDto,
} from "@ramp/contracts";
import { sleep } from "@ramp/devinfra/testing";
import { callRpc, ensureStreams, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { type Behaviour, type Receiver, receiver } from "./support/webhook-receiver.ts";

// ---- helpers ----

function order(id: string, status: OrderStatus): TransactionDto {
  return sampleTransaction({
    id,
    status,
    signature: status === "COMPLETED" ? "sig" : "",
    createdAt: "2026-01-02T03:04:05.678Z",
    accountName: "ACME(Pay NGN 16000)",
  });
}

let counter = 0;
const newOrderId = () =>
  `${Date.now().toString(16).padStart(16, "0")}${(++counter).toString(16).padStart(8, "0")}`;
// As the orders service numbers them: INIT is 0 (never announced by orders), each transition adds one.
const SEQ: Record<OrderStatus, number> = { INIT: 0, PROCESSING: 1, COMPLETED: 2, ERROR: 2 };

async function emit(
  nc: NatsConnection,
  apiKeyId: string | null,
  o: TransactionDto,
  webhookURL: string | null,
) {
  const { js } = await ensureStreams(nc);
  await publish(
    js,
    Events.orderStatusChanged,
    { businessId: "b1", apiKeyId, webhookURL, sequence: SEQ[o.status], order: o },
    `${o.id}:${o.status}`,
  );
}

/**
 * Orders carry the API key id, which HTTP never shows; these tests publish order events themselves,
 * so they configure a synthetic key id through the dispatcher's own subject.
 */
async function configureKey(nc: NatsConnection, apiKeyId: string, r: Receiver): Promise<void> {
  const cfg = await callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId, body: { rampWebhookURL: r.url } });
  r.setSecret(cfg.webhookSecret);
}

const FAST = { WEBHOOK_RETRY_SCHEDULE: "0,1,1" };

describe("deliveries of order status changes", () => {
  let stack: Stack;
  // The dispatcher's callers: the gateway (configuration, log) and orders (the events it publishes).
  let nc: NatsConnection;
  let ordersNc: NatsConnection;
  const receivers: Receiver[] = [];
  const track = async (b?: Behaviour) => {
    const r = await receiver(b);
    receivers.push(r);
    return r;
  };
  beforeAll(async () => {
    stack = await startStack({
      services: ["webhook-dispatcher"],
      serviceEnv: { "webhook-dispatcher": FAST },
    });
    nc = await stack.connectAs("gateway");
    ordersNc = await stack.connectAs("orders");
  });
  afterAll(async () => {
    await nc?.drain();
    await ordersNc?.drain();
    await stack?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it("arrive signed, in order, with the body exactly the order", async () => {
    const r = await track();
    await configureKey(nc, "key-order", r);
    const id = newOrderId();
    for (const s of ["INIT", "PROCESSING", "COMPLETED"] as const)
      await emit(ordersNc, "key-order", order(id, s), null);
    await eventually(async () => (r.got.length >= 3 ? true : undefined), 15_000);
    await sleep(300);
    expect(r.got.map((g) => g.body.status)).toEqual(["INIT", "PROCESSING", "COMPLETED"]);
    for (const g of r.got) {
      expect(g.verified).toBe(true);
      expect(g.headers["content-type"]).toBe("application/json");
      expect(g.raw.toString()).toBe(JSON.stringify(order(id, g.body.status)));
    }
  });

  it("arrive in order even when published newest first", async () => {
    const r = await track();
    await configureKey(nc, "key-reorder", r);
    const id = newOrderId();
    // An order's first announced status is PROCESSING (1); COMPLETED (2) waits for it.
    await emit(ordersNc, "key-reorder", order(id, "COMPLETED"), null);
    await emit(ordersNc, "key-reorder", order(id, "PROCESSING"), null);
    await eventually(async () => (r.got.length >= 2 ? true : undefined), 15_000);
    expect(r.got.map((g) => g.body.status)).toEqual(["PROCESSING", "COMPLETED"]);
  });

  it("go to the order's webhookURL over the key's, unsigned when the order has no key", async () => {
    const keyUrl = await track();
    const own = await track();
    await configureKey(nc, "key-own", keyUrl);
    // Same key, same secret: the order's own URL is signed with it too.
    own.setSecret((await callRpc(nc, Rpc.webhookConfigGet, { apiKeyId: "key-own" })).webhookSecret);
    const signedId = newOrderId();
    const anonId = newOrderId();
    await emit(ordersNc, "key-own", order(signedId, "INIT"), own.url);
    await emit(ordersNc, null, order(anonId, "INIT"), own.url);
    await eventually(async () => (own.got.length >= 2 ? true : undefined), 15_000);
    const byId = new Map(own.got.map((g) => [g.body.id, g]));
    expect(byId.get(signedId)?.verified).toBe(true);
    expect(byId.get(anonId)?.verified).toBeNull();
    expect(byId.get(anonId)?.headers["x-svc-signature"]).toBeUndefined();
    expect(keyUrl.got).toHaveLength(0);
  });

  it("retry a failing receiver with a fresh timestamp each time until it succeeds", async () => {
    const r = await track((n) => ({ status: n <= 2 ? 500 : 200 }));
    await configureKey(nc, "key-retry", r);
    const id = newOrderId();
    await emit(ordersNc, "key-retry", order(id, "INIT"), null);
    await eventually(async () => (r.got.length >= 3 ? true : undefined), 20_000);
    await sleep(1_500);
    expect(r.got.map((g) => g.answered)).toEqual([500, 500, 200]);
    expect(r.got.every((g) => g.verified === true)).toBe(true);
    expect(new Set(r.got.map((g) => g.timestamp)).size).toBe(3);
    const log = await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: "key-retry", id, limit: 10 });
    expect(log.map((a) => [a.attempt, a.statusCode, a.delivered])).toEqual([
      [3, 200, true],
      [2, 500, false],
      [1, 500, false],
    ]);
    expect(log[1]?.error).toBe("Receiver answered 500");
    // The receiver is on this host: a private target, so the log keeps none of its answer.
    expect(log[1]?.response).toBeNull();
  });

  it("count a redirect as a failure and never follow it", async () => {
    const target = await track();
    const r = await track(() => ({ status: 302, location: `${target.url}/elsewhere` }));
    await configureKey(nc, "key-302", r);
    const id = newOrderId();
    await emit(ordersNc, "key-302", order(id, "INIT"), null);
    await eventually(async () => (r.got.length >= 3 ? true : undefined), 20_000);
    const log = await eventually(async () => {
      const l = await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: "key-302", id, limit: 10 });
      return l.length === 3 ? l : undefined;
    });
    expect(log.every((a) => !a.delivered && a.error === "Redirect (302) not followed")).toBe(true);
    expect(target.got).toHaveLength(0);
  });

  it("never deliver a stale status after a newer one succeeded", async () => {
    const r = await track();
    await configureKey(nc, "key-stale", r);
    const id = newOrderId();
    await emit(ordersNc, "key-stale", order(id, "COMPLETED"), null);
    await eventually(async () => (r.got.length >= 1 ? true : undefined), 15_000);
    await emit(ordersNc, "key-stale", order(id, "PROCESSING"), null);
    await sleep(1_000);
    expect(r.got.map((g) => g.body.status)).toEqual(["COMPLETED"]);
  });

  it("still deliver, exactly once, after the dispatcher is killed mid-retry", async () => {
    let down = true;
    const r = await track(() => ({ status: down ? 503 : 200 }));
    await configureKey(nc, "key-kill", r);
    const id = newOrderId();
    await emit(ordersNc, "key-kill", order(id, "INIT"), null);
    await eventually(async () => (r.got.length >= 1 ? true : undefined), 15_000, 20);
    await stack.stop("webhook-dispatcher");
    const seenWhileDown = r.got.length;
    down = false;
    await sleep(1_500);
    expect(r.got).toHaveLength(seenWhileDown);
    await stack.start("webhook-dispatcher");
    await eventually(async () => (r.got.some((g) => g.answered === 200) ? true : undefined), 20_000);
    await sleep(2_000);
    expect(r.got.filter((g) => g.answered === 200)).toHaveLength(1);
    expect(r.got.every((g) => g.verified === true)).toBe(true);
  });
});

describe("payments, the delivery log and redelivery", () => {
  let stack: Stack;
  // The dispatcher's callers: the gateway (configuration, log) and orders (the events it publishes).
  let nc: NatsConnection;
  let ordersNc: NatsConnection;
  let r: Receiver;
  beforeAll(async () => {
    stack = await startStack({
      services: ["webhook-dispatcher"],
      serviceEnv: { "webhook-dispatcher": FAST },
    });
    nc = await stack.connectAs("gateway");
    ordersNc = await stack.connectAs("orders");
    r = await receiver();
  });
  afterAll(async () => {
    await nc?.drain();
    await ordersNc?.drain();
    await stack?.close();
    await r?.close();
  });

  it("posts a settled payment, signed, to the key's paymentWebhookURL", async () => {
    const cfg = await callRpc(nc, Rpc.webhookConfigUpdate, {
      apiKeyId: "key-pay",
      body: { paymentWebhookURL: `${r.url}/payments` },
    });
    r.setSecret(cfg.webhookSecret);
    const payment = PaymentSchema.parse({
      id: "66aa00000000000000000001",
      status: "SUCCESSFUL",
      method: "FIAT",
      amount: 100,
      fee: 1,
      totalAmount: 101,
      currency: "NGN",
      chain: null,
      mint: null,
      reference: null,
      createdAt: "2026-01-02T03:04:05.678Z",
      expiresAt: "2026-01-05T03:04:05.678Z",
      fiat: {
        accountNumber: "9900000001",
        accountName: "ACME",
        bank: "Sandbox Bank",
        amount: 101,
        currency: "NGN",
      },
    });
    const { js } = await ensureStreams(ordersNc);
    await publish(
      js,
      Events.paymentSettled,
      { businessId: "b1", apiKeyId: "key-pay", payment },
      `pay:${payment.id}`,
    );
    await eventually(async () => (r.got.length >= 1 ? true : undefined), 15_000);
    expect(r.got[0]?.verified).toBe(true);
    expect(r.got[0]?.raw.toString()).toBe(JSON.stringify(payment));
  });

  it("lists attempts newest first and redelivers with a fresh signature; another key gets 404", async () => {
    const log = await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: "key-pay", limit: 10 });
    expect(log).toHaveLength(1);
    const first = log[0]!;
    expect(first).toMatchObject({ type: "PAYMENT", subjectId: "66aa00000000000000000001", delivered: true });
    await sleep(1_100);
    const again = await callRpc(nc, Rpc.webhookRedeliver, {
      apiKeyId: "key-pay",
      deliveryId: first.deliveryId,
    });
    expect(WebhookTestResultDto.parse(again)).toMatchObject({
      delivered: true,
      statusCode: 200,
      error: null,
    });
    expect(r.got).toHaveLength(2);
    expect(r.got[1]?.verified).toBe(true);
    expect(r.got[1]?.raw.equals(r.got[0]!.raw)).toBe(true);
    expect(r.got[1]?.timestamp).not.toBe(r.got[0]?.timestamp);
    const after = await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: "key-pay", limit: 10 });
    expect(after.map((a) => a.attempt)).toEqual([2, 1]);
    await expect(
      callRpc(nc, Rpc.webhookRedeliver, { apiKeyId: "someone-else", deliveryId: first.deliveryId }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("SSRF guard (WEBHOOK_ALLOW_PRIVATE=false)", () => {
  let stack: Stack;
  // The dispatcher's callers: the gateway (configuration, log) and orders (the events it publishes).
  let nc: NatsConnection;
  let ordersNc: NatsConnection;
  let r: Receiver;
  beforeAll(async () => {
    stack = await startStack({
      services: ["webhook-dispatcher"],
      serviceEnv: {
        "webhook-dispatcher": { ...FAST, WEBHOOK_RETRY_SCHEDULE: "0", WEBHOOK_ALLOW_PRIVATE: "false" },
      },
    });
    nc = await stack.connectAs("gateway");
    ordersNc = await stack.connectAs("orders");
    r = await receiver();
  });
  afterAll(async () => {
    await nc?.drain();
    await ordersNc?.drain();
    await stack?.close();
    await r?.close();
  });

  it("refuses private targets when saved, and names that resolve to them at connect time", async () => {
    const port = new URL(r.url).port;
    for (const url of [r.url, `https://127.0.0.1:${port}/`, "https://169.254.169.254/latest/meta-data"]) {
      await expect(
        callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId: "key-ssrf-saved", body: { rampWebhookURL: url } }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST", detail: "webhook URL must be a public https URL" });
    }
    // A DNS name passes when saved; what it resolves to is checked when a delivery connects.
    const url = `https://localhost:${port}/`;
    const key = "key-ssrf-dns";
    await callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId: key, body: { rampWebhookURL: url } });
    const id = newOrderId();
    await emit(ordersNc, key, order(id, "INIT"), null);
    const log = await eventually(async () => {
      const l = await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: key, id, limit: 5 });
      return l.length === 1 ? l : undefined;
    });
    expect(log[0]).toMatchObject({ delivered: false, statusCode: null, url });
    expect(log[0]?.error).toMatch(/^Refused: localhost resolves to non-public address/);
    // An order's own URL saved before the rule (or by another path) is still refused when sent.
    const legacy = newOrderId();
    await emit(ordersNc, key, order(legacy, "INIT"), `https://127.0.0.1:${port}/`);
    const refused = await eventually(async () => {
      const l = await callRpc(nc, Rpc.webhookDeliveries, { apiKeyId: key, id: legacy, limit: 5 });
      return l.length === 1 ? l : undefined;
    });
    expect(refused[0]?.error).toBe("Refused: 127.0.0.1 is not a public address");
    expect(r.got).toHaveLength(0);
  });
});
