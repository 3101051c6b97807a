import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OrderStatus, TransactionDto } from "@ramp/contracts";
import { Events, TransactionDto as TransactionSchema, WebhookTestResultDto } from "@ramp/contracts";
import { ensureStreams, publish } from "@ramp/runtime";
import { connect, type NatsConnection } from "@nats-io/transport-node";
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
const newOrderId = () => `${Date.now().toString(16).padStart(16, "0")}${(++counter).toString(16).padStart(8, "0")}`;
const SEQ: Record<OrderStatus, number> = { INIT: 1, PROCESSING: 2, COMPLETED: 3, ERROR: 3 };

async function withStack(
  env: Record<string, string>,
  fn: (s: Stack, nc: NatsConnection) => Promise<void>,
): Promise<void> {
  const stack = await startStack({
    services: ["pricing", "webhook-dispatcher", "gateway"],
    serviceEnv: { "webhook-dispatcher": env },
  });
  const nc = await connect({ servers: stack.natsUrl });
  try {
    await fn(stack, nc);
  } finally {
    await nc.drain();
    await stack.close();
  }
}

async function emit(nc: NatsConnection, apiKeyId: string | null, o: TransactionDto, webhookURL: string | null) {
  const { js } = await ensureStreams(nc);
  await publish(
    js,
    Events.orderStatusChanged,
    { businessId: "b1", apiKeyId, webhookURL, sequence: SEQ[o.status], order: o },
    `${o.id}:${o.status}`,
  );
}

/** The API key id is not exposed over HTTP; the order events carry it, so tests use a fixed one. */
async function keyWithSecret(stack: Stack, r: Receiver, apiKeyId: string): Promise<string> {
  // The dispatcher serves config.get over NATS; ask it directly for this synthetic key.
  const { callRpc } = await import("@ramp/runtime");
  const { Rpc } = await import("@ramp/contracts");
  const nc = await connect({ servers: stack.natsUrl });
  try {
    const cfg = await callRpc(nc, Rpc.webhookConfigUpdate, { apiKeyId, body: { rampWebhookURL: r.url } });
    r.setSecret(cfg.webhookSecret);
    return cfg.webhookSecret;
  } finally {
    await nc.drain();
  }
}
