import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { buildOpenApiDocument, ChangeFeeds, Routes } from "@ramp/contracts";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import {
  createClaims,
  createLogger,
  createRateCache,
  openChangeFeed,
  type RateCache,
  type Stoppable,
} from "@ramp/runtime";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../src/app.ts";
import { createKeyStore } from "../src/auth/api-keys.ts";
import { loadGatewayConfig } from "../src/config.ts";
import { createIdempotencyStore, type IdempotencyStore } from "../src/idempotency/idempotency-store.ts";
import { openConsoleStores } from "../src/people/stores.ts";
import { SplitRouter } from "../src/split-router.ts";

declare module "vitest" {
  export interface ProvidedContext {
    natsBin: string;
    testDataDir: string;
  }
}

const log = createLogger("gateway-test", "silent");
let nats: TestNats;
let nc: NatsConnection;
let client: MongoClient;
let changes: Stoppable;
let idempotency: IdempotencyStore;
let rates: RateCache;
let app: ReturnType<typeof createApp>;

/** The gateway as `npm start` builds it (sandbox on), on a real NATS and database, without a listener. */
beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("gateway");
  client = await MongoClient.connect(inject("mongoUrl"));
  const db = client.db(`t${randomBytes(4).toString("hex")}_gateway_routes`);
  const config = loadGatewayConfig({
    ...nats.envFor("gateway"),
    MONGODB_URI: inject("mongoUrl"),
    ADMIN_TOKEN: "test-admin-token-0123456789",
    RAMP_SANDBOX: "true",
    LOG_LEVEL: "silent",
  });
  const feed = await openChangeFeed(nc, ChangeFeeds.gateway, log);
  changes = feed;
  idempotency = createIdempotencyStore(db, createClaims(db), { ttlSeconds: 60, leaseMs: 60_000, log });
  rates = createRateCache(nc, log);
  app = createApp({
    config,
    nc,
    keys: createKeyStore(db, feed),
    rates,
    idempotency,
    console: await openConsoleStores(db, { idleSeconds: 1800, now: Date.now, secretKey: randomBytes(32) }),
    log,
    ready: async () => true,
  });
});
afterAll(async () => {
  await idempotency?.stop();
  await rates?.stop();
  await changes?.stop();
  await nc?.close();
  await client?.close();
  await nats?.stop();
});

describe("the OpenAPI document describes the gateway", () => {
  it("every route the gateway serves is in the document, and nothing it does not serve", () => {
    const served = new Set(
      app.routes
        .filter((r) => r.method !== "ALL")
        // Hono writes `:id`; OpenAPI writes `{id}`.
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
    );
    const described = new Set<string>();
    for (const [path, item] of Object.entries(buildOpenApiDocument().paths ?? {})) {
      for (const method of ["get", "post", "put", "patch", "delete"] as const) {
        if (item[method]) described.add(`${method.toUpperCase()} ${path}`);
      }
    }
    expect([...served].sort()).toEqual([...described].sort());
  });
});

describe("routing", () => {
  it("matches every route outside the console with one precompiled expression", async () => {
    // Answered by any status: matching is what builds each side's router.
    await app.request("/pub/v2/rate?currency=NGN");
    await app.request(Routes.consoleMe.path);
    expect(app.router).toBeInstanceOf(SplitRouter);
    // A route that can match the same path as another (static beside a parameter) would put the whole
    // public API on the slower tree walk.
    expect((app.router as SplitRouter<unknown>).routers.outside).toBe("SmartRouter + RegExpRouter");
  });
});

describe("the /docs page works with no internet", () => {
  it("references only the gateway's own URLs, and the script it names is served", async () => {
    const page = await app.request("/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    // Every src/href, and any absolute or protocol-relative URL anywhere in the page.
    const refs = [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]);
    expect(refs).toContain(Routes.docsScript.path);
    for (const ref of refs) expect(ref, ref).toMatch(/^\/(?!\/)/);
    expect(html).not.toMatch(/https?:\/\/|["'(]\/\//);

    const script = await app.request(Routes.docsScript.path);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
