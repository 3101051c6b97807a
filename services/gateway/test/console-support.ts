import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { NatsConnection } from "@nats-io/transport-node";
import { badRequest, ChangeFeeds, CSRF_HEADER, notFound, Rpc, SESSION_COOKIE } from "@ramp/contracts";
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
import { inject } from "vitest";
import { createApp } from "../src/app.ts";
import { createKeyStore, type KeyStore } from "../src/auth/api-keys.ts";
import { loadGatewayConfig } from "../src/config.ts";
import { createIdempotencyStore } from "../src/idempotency/idempotency-store.ts";
import { openConsoleStores } from "../src/people/stores.ts";

declare module "vitest" {
  export interface ProvidedContext {
    natsBin: string;
    testDataDir: string;
    mongoUrl: string;
  }
}

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const IDLE_SECONDS = 1800;

export type App = ReturnType<typeof createApp>;

/** A gateway app on real NATS and a fresh database, its console clock in the test's hands. */
export interface ConsoleGateway {
  app: App;
  db: Db;
  keys: KeyStore;
  clock: { now: number };
  /** What the pricing stand-in was told (profiles.set). */
  profiles: unknown[];
  /** NATS and database settings a real service started beside the gateway needs. */
  envFor(service: "pricing" | "webhook-dispatcher"): Record<string, string>;
  /** A connection as `service`, for a stand-in of the test's own (closed by `stop`). */
  connectAs(service: "pricing" | "orders"): Promise<NatsConnection>;
  stop(): Promise<void>;
}

/** `realDispatcher` / `realPricing`: no stand-in for that service, the test starts the real one. */
export async function startConsoleGateway(opts: {
  sandbox: boolean;
  name: string;
  realDispatcher?: boolean;
  realPricing?: boolean;
  /** Gateway settings beside the test defaults (its bounds, say). */
  gatewayEnv?: Record<string, string>;
}): Promise<ConsoleGateway> {
  const log = createLogger("gateway-test", "silent");
  const nats: TestNats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  const nc: NatsConnection = await nats.connectAs("gateway");
  const client = await MongoClient.connect(inject("mongoUrl"));
  const db = client.db(`t${randomBytes(4).toString("hex")}_${opts.name}`);
  const config = loadGatewayConfig({
    ...nats.envFor("gateway"),
    MONGODB_URI: inject("mongoUrl"),
    ADMIN_TOKEN,
    CONSOLE_SECRET_KEY: "5e".repeat(32),
    RAMP_SANDBOX: String(opts.sandbox),
    LOG_LEVEL: "silent",
    ...opts.gatewayEnv,
  });
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const feed = await openChangeFeed(nc, ChangeFeeds.gateway, log);
  const idempotency = createIdempotencyStore(db, createClaims(db), { ttlSeconds: 60, leaseMs: 60_000, log });
  const keys = createKeyStore(db, feed);
  await keys.init();
  await idempotency.init();
  const rates = createRateCache(nc, log);
  const consoleStores = await openConsoleStores(db, {
    idleSeconds: IDLE_SECONDS,
    now,
    secretKey: randomBytes(32),
  });
  const app = createApp({
    config,
    nc,
    keys,
    rates,
    idempotency,
    console: consoleStores,
    now,
    log,
    ready: async () => true,
  });
  // Stand-ins for the services the console's writes go through, connected as their owners.
  const pricing = await nats.connectAs("pricing");
  const dispatcher = await nats.connectAs("webhook-dispatcher");
  const orders = await nats.connectAs("orders");
  const chains = await nats.connectAs("chain-watcher");
  const banking = await nats.connectAs("banking");
  const profiles: unknown[] = [];
  /** The pricing stand-in's fees, as its profiles.get answers them. */
  const fees = new Map<string, number>();
  const stoppers: Stoppable[] = [idempotency, rates, feed];
  const extra: NatsConnection[] = [];
  if (!opts.realPricing) {
    stoppers.push(
      serveRpc(pricing, Rpc.profileSet, "pricing", log, async (req) => {
        profiles.push(req);
        fees.set(req.businessId, req.feeBps);
        return { ok: true as const };
      }),
      serveRpc(pricing, Rpc.profilesGet, "pricing", log, async ({ businessIds }) => ({
        feeBps: Object.fromEntries(businessIds.map((id) => [id, fees.get(id) ?? 0])),
      })),
    );
  }
  // Orders' answers to the console's transaction routes: none of its orders exist here (e2e has them).
  stoppers.push(
    serveRpc(orders, Rpc.transactionList, "orders", log, async () => ({ data: [], nextCursor: "" })),
    serveRpc(orders, Rpc.exceptionList, "orders", log, async () => ({ data: [], nextCursor: "" })),
    serveRpc(orders, Rpc.transactionExport, "orders", log, async () => ({ data: [], next: "" })),
    serveRpc(orders, Rpc.transactionTimeline, "orders", log, async () => {
      throw notFound("Transaction not found");
    }),
    serveRpc(orders, Rpc.paymentList, "orders", log, async () => ({ data: [], nextCursor: "" })),
    serveRpc(orders, Rpc.transactionOverview, "orders", log, async ({ from, to }) => ({
      from,
      to,
      days: [],
    })),
  );
  // Banking's: no account is registered here; a registration's bank is unknown (e2e registers real ones).
  stoppers.push(
    serveRpc(banking, Rpc.accountsList, "banking", log, async () => ({ data: [], nextCursor: "" })),
    serveRpc(banking, Rpc.accountsRegister, "banking", log, async ({ bankCode }) => {
      throw badRequest(`Bank with code ${bankCode} not found`);
    }),
  );
  // Chain-watcher's: no real chain is served here (e2e/chain-money-ops has anvil).
  stoppers.push(
    serveRpc(chains, Rpc.chainTreasury, "chain-watcher", log, async () => ({ data: [] })),
    serveRpc(chains, Rpc.chainReindex, "chain-watcher", log, async () => {
      throw badRequest("This chain is on the sandbox adapter: there is nothing to scan again");
    }),
  );
  if (!opts.realDispatcher) {
    stoppers.push(
      serveRpc(dispatcher, Rpc.webhookConfigGet, "webhook-dispatcher", log, async () => ({
        rampWebhookURL: "https://example.com/hook",
        paymentWebhookURL: null,
        webhookSecret: `whsec_${"ab".repeat(32)}`,
      })),
      serveRpc(dispatcher, Rpc.webhookDeliveryPage, "webhook-dispatcher", log, async () => ({
        data: [],
        nextCursor: "",
      })),
    );
  }
  return {
    app,
    db,
    keys,
    clock,
    profiles,
    envFor: (service) => ({
      ...nats.envFor(service),
      MONGODB_URI: inject("mongoUrl"),
      MONGODB_DATABASE: `${db.databaseName}_${service}`,
      LOG_LEVEL: "silent",
    }),
    async connectAs(service) {
      const conn = await nats.connectAs(service);
      extra.push(conn);
      return conn;
    },
    async stop() {
      for (const s of stoppers) await s.stop();
      await Promise.all([
        ...extra.map((c) => c.close()),
        nc.close(),
        pricing.close(),
        dispatcher.close(),
        orders.close(),
        chains.close(),
        banking.close(),
      ]);
      await client.close();
      await nats.stop();
    },
  };
}

/** A signed-in browser: the session cookie and CSRF token it got at sign-in. */
export interface Browser {
  cookie: string;
  csrf: string;
}

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

export async function signIn(app: App, email: string, password: string, totp?: string) {
  const res = await app.request("/console/v1/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password, ...(totp ? { totp } : {}) }),
  });
  const setCookie = res.headers.get("set-cookie") ?? "";
  const cookie = setCookie.match(new RegExp(`${SESSION_COOKIE}=([^;]*)`))?.[1] ?? "";
  const body = (await res.json()) as { csrfToken?: string; user?: { id: string }; message?: unknown };
  return { res, body, setCookie, browser: { cookie, csrf: body.csrfToken ?? "" } satisfies Browser };
}

/** A console request as the browser sends it: cookie always, the CSRF header unless told otherwise. */
export function consoleCall(
  app: App,
  browser: Browser,
  method: string,
  path: string,
  body?: unknown,
  opts: { csrf?: string | null } = {},
) {
  const csrf = opts.csrf === undefined ? browser.csrf : opts.csrf;
  return app.request(path, {
    method,
    headers: {
      cookie: `${SESSION_COOKIE}=${browser.cookie}`,
      ...(csrf === null ? {} : { [CSRF_HEADER]: csrf }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export async function createOperator(app: App, email: string, password: string, role: string) {
  const res = await app.request("/admin/v1/operators", {
    method: "POST",
    headers: adminHeaders,
    body: JSON.stringify({ email, password, role }),
  });
  return { res, body: (await res.json()) as { id: string; email: string; role: string } };
}

/** An operator of `role` signed in, and members of a business by role, each signed in (`<role>@a.example`). */
export async function signedInPeople(
  app: App,
  businessId: string,
  password: string,
  roles: readonly string[],
  operatorRole = "operator",
) {
  await createOperator(app, "ops@ops.example", password, operatorRole);
  const ops = (await signIn(app, "ops@ops.example", password)).browser;
  const members: Record<string, Browser> = {};
  for (const role of roles) {
    const res = await consoleCall(app, ops, "POST", "/console/v1/members", {
      email: `${role}@a.example`,
      password,
      role,
      businessId,
    });
    if (res.status !== 201) throw new Error(`member ${role}: ${res.status}`);
    members[role] = (await signIn(app, `${role}@a.example`, password)).browser;
  }
  return { ops, members };
}

/** A webhook receiver on 127.0.0.1 that answers 204 and keeps every request it got. */
export async function startReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
