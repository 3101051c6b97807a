import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { OrderStatus, TransactionDto } from "@ramp/contracts";
import { Events, Rpc, TransactionDto as TransactionSchema, WebhookTestResultDto } from "@ramp/contracts";
import { callRpc, ensureStreams, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";

// ---- An independent receiver: spec §6 verification written from the spec, not from the dispatcher. ----

interface Received {
  raw: Buffer;
  headers: IncomingHttpHeaders;
  timestamp: number | null;
  /** null when unsigned; true/false when a signature was present. */
  verified: boolean | null;
  body: any;
  answered: number;
}

function verify(secret: string, headers: IncomingHttpHeaders, raw: Buffer): boolean | null {
  const ts = headers["x-svc-timestamp"];
  const sig = headers["x-svc-signature"];
  if (typeof ts !== "string" || typeof sig !== "string") return null;
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const mac = createHmac("sha256", secret);
  mac.update(Buffer.concat([Buffer.from(`${ts}.`), raw]));
  const expected = Buffer.from(mac.digest("hex"));
  return sig
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.startsWith("v1="))
    .some((s) => {
      const given = Buffer.from(s.slice(3));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

type Behaviour = (n: number, req: { path: string }) => { status: number; location?: string };

async function receiver(behaviour: Behaviour = () => ({ status: 200 })) {
  const got: Received[] = [];
  let secret = "";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const b = behaviour(got.length + 1, { path: req.url ?? "/" });
      got.push({
        raw,
        headers: req.headers,
        timestamp: req.headers["x-svc-timestamp"] ? Number(req.headers["x-svc-timestamp"]) : null,
        verified: verify(secret, req.headers, raw),
        body: JSON.parse(raw.toString("utf8")),
        answered: b.status,
      });
      res.writeHead(b.status, b.location ? { location: b.location } : {});
      res.end(b.status >= 400 ? "nope" : "ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    setSecret: (s: string) => {
      secret = s;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
type Receiver = Awaited<ReturnType<typeof receiver>>;

// ---- helpers ----

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function order(id: string, status: OrderStatus): TransactionDto {
  return TransactionSchema.parse({
    id,
    address: "",
    signature: status === "COMPLETED" ? "sig" : "",
    mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    currency: "NGN",
    amount: 10,
    usdcAmount: 10,
    fiatAmount: 16000,
    sender: "",
    recipient: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    rate: 1600,
    status,
    transactionType: "ON_RAMP",
    createdAt: "2026-01-02T03:04:05.678Z",
    accountNumber: "9912345678",
    accountName: "ACME(Pay NGN 16000)",
    bank: "Sandbox Bank",
    fee: 0,
    chain: "SOLANA",
  });
}

let counter = 0;
const newOrderId = () =>
  `${Date.now().toString(16).padStart(16, "0")}${(++counter).toString(16).padStart(8, "0")}`;
const SEQ: Record<OrderStatus, number> = { INIT: 1, PROCESSING: 2, COMPLETED: 3, ERROR: 3 };

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

const FAST = { WEBHOOK_RETRY_SCHEDULE: "0,1,1", WEBHOOK_POLL_MS: "100" };

describe("deliveries of order status changes (spec §6)", () => {
  let stack: Stack;
  let nc: NatsConnection;
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
    nc = await connect({ servers: stack.natsUrl });
  });
  afterAll(async () => {
    await nc?.drain();
    await stack?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it("arrive signed, in order, with the body exactly the order", async () => {
    const r = await track();
    await configureKey(nc, "key-order", r);
    const id = newOrderId();
    for (const s of ["INIT", "PROCESSING", "COMPLETED"] as const)
      await emit(nc, "key-order", order(id, s), null);
    await eventually(async () => (r.got.length >= 3 ? true : undefined), 15_000);
    await sleep(300);
    expect(r.got.map((g) => g.body.status)).toEqual(["INIT", "PROCESSING", "COMPLETED"]);
    for (const g of r.got) {
      expect(g.verified).toBe(true);
      expect(g.headers["content-type"]).toBe("application/json");
      expect(g.raw.toString()).toBe(JSON.stringify(order(id, g.body.status)));
    }
  });

  it("go to the order's webhookURL over the key's, unsigned when the order has no key", async () => {
    const keyUrl = await track();
    const own = await track();
    await configureKey(nc, "key-own", keyUrl);
    // Same key, same secret: the order's own URL is signed with it too.
    own.setSecret((await callRpc(nc, Rpc.webhookConfigGet, { apiKeyId: "key-own" })).webhookSecret);
    const signedId = newOrderId();
    const anonId = newOrderId();
    await emit(nc, "key-own", order(signedId, "INIT"), own.url);
    await emit(nc, null, order(anonId, "INIT"), own.url);
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
    await emit(nc, "key-retry", order(id, "INIT"), null);
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
    expect(log[1]?.response).toBe("nope");
  });

  it("count a redirect as a failure and never follow it", async () => {
    const target = await track();
    const r = await track(() => ({ status: 302, location: `${target.url}/elsewhere` }));
    await configureKey(nc, "key-302", r);
    const id = newOrderId();
    await emit(nc, "key-302", order(id, "INIT"), null);
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
    await emit(nc, "key-stale", order(id, "COMPLETED"), null);
    await eventually(async () => (r.got.length >= 1 ? true : undefined), 15_000);
    await emit(nc, "key-stale", order(id, "PROCESSING"), null);
    await sleep(1_000);
    expect(r.got.map((g) => g.body.status)).toEqual(["COMPLETED"]);
  });

  it("still deliver, exactly once, after the dispatcher is killed mid-retry", async () => {
    let down = true;
    const r = await track(() => ({ status: down ? 503 : 200 }));
    await configureKey(nc, "key-kill", r);
    const id = newOrderId();
    await emit(nc, "key-kill", order(id, "INIT"), null);
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
