import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { ChangeFeeds, Routes, Rpc, type ServiceName } from "@ramp/contracts";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import {
  createClaims,
  createLogger,
  createRateCache,
  openChangeFeed,
  type Stoppable,
  serveRpc,
} from "@ramp/runtime";
import { type Db, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../src/app.ts";
import { createKeyStore } from "../src/auth/api-keys.ts";
import { loadGatewayConfig } from "../src/config.ts";
import { createIdempotencyStore } from "../src/idempotency/idempotency-store.ts";
import { openConsoleStores } from "../src/people/stores.ts";

/**
 * Two gateway replicas, each with its own NATS connection and its own process state, on one NATS and one
 * database: a key's documented limit holds for the pair, not for each. A stand-in banking answers the
 * bank search both replicas forward, and a stand-in dispatcher the secret a new business is shown.
 */
const log = createLogger("rate-limit-replicas-test", "silent");
const ADMIN_TOKEN = "test-admin-token-0123456789";
const PER_SECOND = 1;
const BURST = 6;
let nats: TestNats;
let client: MongoClient;
let db: Db;
const connections: NatsConnection[] = [];
const stoppers: Stoppable[] = [];
type App = ReturnType<typeof createApp>;
let replicas: [App, App];

async function connect(service: ServiceName) {
  const nc = await nats.connectAs(service);
  connections.push(nc);
  return nc;
}

async function replica() {
  const nc = await connect("gateway");
  const config = loadGatewayConfig({
    ...nats.envFor("gateway"),
    MONGODB_URI: inject("mongoUrl"),
    ADMIN_TOKEN,
    RATE_LIMIT_PER_SECOND: String(PER_SECOND),
    RATE_LIMIT_BURST: String(BURST),
    LOG_LEVEL: "silent",
  });
  const feed = await openChangeFeed(nc, ChangeFeeds.gateway, log);
  const idempotency = createIdempotencyStore(db, createClaims(db), { ttlSeconds: 60, leaseMs: 60_000, log });
  const rates = createRateCache(nc, log);
  stoppers.push(idempotency, feed, rates);
  const keys = createKeyStore(db, feed);
  await keys.init();
  await idempotency.init();
  const console = await openConsoleStores(db, {
    idleSeconds: 1800,
    now: Date.now,
    secretKey: randomBytes(32),
  });
  return createApp({ config, nc, keys, rates, idempotency, console, log, ready: async () => true });
}

async function newKey(): Promise<string> {
  const created = await replicas[0].request(Routes.adminBusinessCreate.path, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Limited", feeBps: 10 }),
  });
  const body = (await created.json()) as { apiKey: string };
  expect(created.status, JSON.stringify(body)).toBe(201);
  return body.apiKey;
}

/** `count` bank searches with `apiKey`, sent at once, alternating between the replicas. */
async function burst(apiKey: string, count: number) {
  const started = Date.now();
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      replicas[i % replicas.length]!.request("/pub/v2/bank?name=sandbox", {
        headers: { "x-api-key": apiKey },
      }),
    ),
  );
  return { responses, elapsedMs: Date.now() - started };
}

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  client = await MongoClient.connect(inject("mongoUrl"));
  db = client.db(`t${randomBytes(4).toString("hex")}_gateway_limits`);
  const pricing = await connect("pricing");
  const banking = await connect("banking");
  const dispatcher = await connect("webhook-dispatcher");
  stoppers.push(
    serveRpc(dispatcher, Rpc.webhookConfigGet, "webhook-dispatcher", log, async () => ({
      rampWebhookURL: null,
      paymentWebhookURL: null,
      webhookSecret: `whsec_${"ab".repeat(32)}`,
    })),
    serveRpc(pricing, Rpc.profileSet, "pricing", log, async () => ({ ok: true as const })),
    serveRpc(banking, Rpc.banksList, "banking", log, async () => [
      { id: "bank-1", name: "Sandbox Bank", code: "000013", country: "NG" },
    ]),
  );
  replicas = [await replica(), await replica()];
});
afterAll(async () => {
  for (const s of stoppers.reverse()) await s.stop();
  for (const nc of connections) await nc.close();
  await client?.close();
  await nats?.stop();
});

describe("the per-key rate limit across gateway replicas", () => {
  it("lets two replicas together admit one key's burst once, not once each", async () => {
    const apiKey = await newKey();
    const { responses, elapsedMs } = await burst(apiKey, 4 * BURST);
    const admitted = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    // The burst, plus what the sustained rate refilled while the requests ran; each replica alone would
    // have admitted a whole burst (2 × BURST between them).
    expect(admitted.length).toBeGreaterThanOrEqual(BURST);
    expect(admitted.length).toBeLessThanOrEqual(BURST + Math.floor((elapsedMs / 1000) * PER_SECOND));
    expect(admitted.length).toBeLessThan(2 * BURST);
    expect(admitted.length + limited.length).toBe(responses.length);
    for (const r of limited) {
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await r.json()).toMatchObject({ statusCode: 429 });
    }
  });

  it("keeps each key's limit to itself", async () => {
    const [first, second] = [await newKey(), await newKey()];
    await burst(first, 2 * BURST);
    const { responses } = await burst(second, BURST);
    expect(responses.map((r) => r.status)).toEqual(Array(BURST).fill(200));
  });

  it("admits again once the sustained rate has refilled a token", async () => {
    const apiKey = await newKey();
    await burst(apiKey, 2 * BURST);
    await new Promise((r) => setTimeout(r, 1100 / PER_SECOND));
    const after = await replicas[1].request("/pub/v2/bank?name=sandbox", {
      headers: { "x-api-key": apiKey },
    });
    expect(after.status).toBe(200);
  });
});
