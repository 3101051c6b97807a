import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  type buildOpenApiDocument,
  ChangeFeeds,
  ErrorBody,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  instanceSubject,
  MAX_ADDRESS_LENGTH,
  type RouteDef,
  Routes,
  Rpc,
  type ServiceName,
  sampleTransaction,
} from "@ramp/contracts";
import { eventually, startTestNats, type TestNats } from "@ramp/devinfra/testing";
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
import { BODY_LIMIT_BYTES } from "../src/body.ts";
import { loadGatewayConfig } from "../src/config.ts";
import { createIdempotencyStore, type IdempotencyStore } from "../src/idempotency/idempotency-store.ts";
import { openConsoleStores } from "../src/people/stores.ts";

/**
 * The gateway app driven in-process with `app.request()` (no listener), on a real NATS and database.
 * Small responders, connected as the services that own each subject, stand in for pricing, banking,
 * orders and webhook-dispatcher, and record what reached them.
 */
const log = createLogger("gateway-test", "silent");
const ADMIN_TOKEN = "test-admin-token-0123456789";
const WEBHOOK_SECRET = `whsec_${"ab".repeat(32)}`;
const exportNext = instanceSubject(Rpc.transactionExportNext, "stub");
const SANDBOX_BANK = { id: "bank-1", name: "Sandbox Bank", code: "000013", country: "NG" };
let nats: TestNats;
let client: MongoClient;
let db: Db;
const connections: NatsConnection[] = [];
const stoppers: Stoppable[] = [];
let app: ReturnType<typeof createApp>;
let apiKey: string;

/** Each message sent to a watched service subject, in order (see beforeAll). */
const reached: string[] = [];
/** What each stand-in service received, by subject. */
const received = new Map<string, unknown[]>();
const record = (subject: string, request: unknown) =>
  received.set(subject, [...(received.get(subject) ?? []), request]);

async function connect(service: ServiceName) {
  const nc = await nats.connectAs(service);
  connections.push(nc);
  return nc;
}

async function buildApp(gatewayNc: NatsConnection, sandbox: boolean) {
  const config = loadGatewayConfig({
    ...nats.envFor("gateway"),
    MONGODB_URI: inject("mongoUrl"),
    ADMIN_TOKEN,
    CONSOLE_SECRET_KEY: "5e".repeat(32),
    RAMP_SANDBOX: String(sandbox),
    LOG_LEVEL: "silent",
  });
  const feed = await openChangeFeed(gatewayNc, ChangeFeeds.gateway, log);
  const idempotency: IdempotencyStore = createIdempotencyStore(db, createClaims(db), {
    ttlSeconds: 60,
    leaseMs: 60_000,
    log,
  });
  stoppers.push(idempotency, feed);
  const keys = createKeyStore(db, feed);
  await keys.init();
  await idempotency.init();
  const rates = createRateCache(gatewayNc, log);
  stoppers.push(rates);
  const console = await openConsoleStores(db, {
    idleSeconds: 1800,
    now: Date.now,
    secretKey: randomBytes(32),
  });
  return createApp({
    config,
    nc: gatewayNc,
    keys,
    rates,
    idempotency,
    console,
    log,
    ready: async () => true,
  });
}

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  client = await MongoClient.connect(inject("mongoUrl"));
  db = client.db(`t${randomBytes(4).toString("hex")}_gateway_request`);

  const pricing = await connect("pricing");
  const dispatcher = await connect("webhook-dispatcher");
  const orders = await connect("orders");
  const banking = await connect("banking");
  // Every message to these subjects, whether or not it would pass the owner's own validation. Each
  // watcher has a connection of its own: a second subscription beside a responder's would change
  // which of its deliveries the server lets it answer.
  for (const [service, contracts] of [
    [
      "orders",
      [Rpc.onrampCreate, Rpc.offrampCreate, Rpc.quoteCreate, Rpc.paymentCreate, Rpc.transactionList],
    ],
    ["banking", [Rpc.banksList, Rpc.accountsLookup, Rpc.accountsRegister]],
    ["webhook-dispatcher", [Rpc.webhookConfigUpdate, Rpc.webhookDeliveries, Rpc.webhookRedeliver]],
    ["pricing", [Rpc.profileSet]],
  ] as const) {
    const watcher = await connect(service);
    for (const { subject } of contracts)
      watcher.subscribe(subject, {
        callback: () => {
          reached.push(subject);
        },
      });
  }
  stoppers.push(
    serveRpc(pricing, Rpc.profileSet, "pricing", log, async () => ({ ok: true as const })),
    serveRpc(pricing, Rpc.marketRateDelete, "pricing", log, async (req) => {
      record(Rpc.marketRateDelete.subject, req);
      return { ok: true as const };
    }),
    serveRpc(dispatcher, Rpc.webhookConfigGet, "webhook-dispatcher", log, async () => ({
      rampWebhookURL: null,
      paymentWebhookURL: null,
      webhookSecret: WEBHOOK_SECRET,
    })),
    serveRpc(dispatcher, Rpc.webhookConfigUpdate, "webhook-dispatcher", log, async (req) => ({
      rampWebhookURL: req.body.rampWebhookURL || null,
      paymentWebhookURL: req.body.paymentWebhookURL || null,
      webhookSecret: WEBHOOK_SECRET,
    })),
    serveRpc(banking, Rpc.banksList, "banking", log, async (req) => {
      record(Rpc.banksList.subject, req);
      return [SANDBOX_BANK];
    }),
    serveRpc(orders, Rpc.offrampCreate, "orders", log, async (req) => {
      record(Rpc.offrampCreate.subject, req);
      return sampleTransaction({ transactionType: "OFF_RAMP", status: "INIT" });
    }),
    serveRpc(orders, Rpc.transactionExport, "orders", log, async (req) => {
      record(Rpc.transactionExport.subject, req);
      // A slow database: the first chunk comes after the gateway has started its answer.
      if (req.filter.status === "ERROR") {
        await new Promise((r) => setTimeout(r, 6_000));
        return { data: [sampleTransaction({ userExternalId: "late" })], next: "" };
      }
      return { data: [sampleTransaction({ userExternalId: "user-1" })], next: exportNext };
    }),
    serveRpc(
      orders,
      Rpc.transactionExportNext,
      "orders",
      log,
      async (req) => {
        record(exportNext, req);
        return { data: [sampleTransaction({ userExternalId: "user-2" })], next: "" };
      },
      exportNext,
    ),
  );

  app = await buildApp(await connect("gateway"), true);
  const created = await app.request(Routes.adminBusinessCreate.path, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "In-process", feeBps: 10 }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  ({ apiKey } = (await created.json()) as { apiKey: string });
});
afterAll(async () => {
  for (const s of stoppers.reverse()) await s.stop();
  for (const nc of connections) await nc.close();
  await client?.close();
  await nats?.stop();
});

const keyed = (headers: Record<string, string> = {}) => ({ "x-api-key": apiKey, ...headers });
const json = { "content-type": "application/json" };
const offrampBody = {
  accountNumber: "0123456789",
  bankCode: "000013",
  currency: "NGN",
  chain: "SOLANA",
  mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  amount: 5,
};

/** The documented error body, and nothing else in it. */
async function expectError(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  const body = ErrorBody.strict().parse(await res.json());
  expect(body.statusCode).toBe(status);
  return body;
}

describe("authentication", () => {
  it("refuses API-key routes without a key, and with an unknown one", async () => {
    const none = await expectError(await app.request("/pub/v2/rate?currency=NGN"), 401);
    expect(none.message).toBe("No API key provided");
    const wrong = await expectError(
      await app.request("/pub/v2/rate?currency=NGN", { headers: { "x-api-key": "rk_nope" } }),
      401,
    );
    expect(wrong.message).toBe("Invalid API key");
  });

  it("checks the key before the body: a keyless bad request is 401, not 400", async () => {
    const res = await app.request(Routes.offrampCreate.path, { method: "POST", headers: json, body: "{}" });
    await expectError(res, 401);
  });

  it("refuses admin routes without the bearer token, or with an API key instead", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong-token-0123456789" },
      keyed(),
    ];
    for (const headers of attempts) {
      const res = await app.request("/admin/v1/rates/NGN", { method: "DELETE", headers });
      expect((await expectError(res, 401)).message).toBe("Invalid admin token");
    }
    expect(received.get(Rpc.marketRateDelete.subject)).toBeUndefined();
  });

  it("serves the unprefixed bank list without a key, and the admin API with the token", async () => {
    const banks = await app.request("/pub/bank?name=sandbox");
    expect(banks.status).toBe(200);
    expect(await banks.json()).toEqual([SANDBOX_BANK]);
    expect(received.get(Rpc.banksList.subject)?.at(-1)).toEqual({ name: "sandbox" });

    const removed = await app.request("/admin/v1/rates/GHS", {
      method: "DELETE",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe("");
    expect(received.get(Rpc.marketRateDelete.subject)).toEqual([{ currency: "GHS" }]);
  });
});

describe("validation answers 400 in the documented shape, before any service is called", () => {
  it("names each invalid query, path and body field", async () => {
    const query = await expectError(
      await app.request("/pub/v2/rate?currency=EUR", { headers: keyed() }),
      400,
    );
    expect(query.error).toBe("Bad Request");
    expect(query.message).toEqual([expect.stringMatching(/^currency must be one of the following values: /)]);

    const path = await expectError(
      await app.request("/pub/v2/transaction/not-an-id", { headers: keyed() }),
      400,
    );
    expect(path.message).toEqual(["id must be a mongodb id"]);

    const before = received.get(Rpc.offrampCreate.subject)?.length ?? 0;
    const body = await expectError(
      await app.request(Routes.offrampCreate.path, {
        method: "POST",
        headers: keyed(json),
        body: JSON.stringify({ ...offrampBody, currency: "EUR", extra: 1 }),
      }),
      400,
    );
    expect(body.message).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^currency must be one of the following values: /),
        "property extra should not exist",
      ]),
    );
    expect(received.get(Rpc.offrampCreate.subject)?.length ?? 0).toBe(before);
  });

  it("refuses malformed JSON with 400, a non-JSON body with 415, and an oversized one with 413", async () => {
    const malformed = await expectError(
      await app.request(Routes.offrampCreate.path, {
        method: "POST",
        headers: keyed(json),
        body: "{not json",
      }),
      400,
    );
    expect(malformed.message).toBe("Malformed JSON in request body");

    const text = await app.request(Routes.offrampCreate.path, {
      method: "POST",
      headers: keyed({ "content-type": "text/plain" }),
      body: JSON.stringify(offrampBody),
    });
    expect((await expectError(text, 415)).message).toBe("Content-Type must be application/json");

    const big = await app.request(Routes.offrampCreate.path, {
      method: "POST",
      headers: keyed(json),
      body: JSON.stringify({ ...offrampBody, description: "x".repeat(BODY_LIMIT_BYTES) }),
    });
    expect((await expectError(big, 413)).message).toBe("Request body too large");
  });
});

describe("hostile strings are refused at the edge, before any service is called", () => {
  const onrampBody = {
    currency: "NGN",
    chain: "SOLANA",
    mint: offrampBody.mint,
    recipient: offrampBody.mint,
    fiatAmount: 5000,
  };
  const post = (path: string, body: object, headers: Record<string, string> = keyed(json)) =>
    app.request(path, { method: "POST", headers, body: JSON.stringify(body) });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, ...json };
  /** Each request, and the field its 400 names. */
  const hostile = (text: string): [string, () => Response | Promise<Response>][] => [
    ["description", () => post(Routes.offrampCreate.path, { ...offrampBody, description: text })],
    ["userExternalId", () => post(Routes.onrampCreate.path, { ...onrampBody, userExternalId: text })],
    [
      "reference",
      () => post(Routes.paymentCreate.path, { method: "FIAT", currency: "NGN", amount: 5, reference: text }),
    ],
    ["name", () => post(Routes.adminBusinessCreate.path, { name: text }, admin)],
    [
      "accountNumber",
      () => post(Routes.bankAccountRegister.path, { bankCode: "000013", accountNumber: text }),
    ],
    [
      "id",
      () => app.request(`/pub/v2/webhook/deliveries?id=${encodeURIComponent(text)}`, { headers: keyed() }),
    ],
    ["deliveryId", () => post(`/pub/v2/webhook/deliveries/${encodeURIComponent(text)}/redeliver`, {})],
    [
      "cursor",
      () => app.request(`/pub/v2/transactions?cursor=${encodeURIComponent(text)}`, { headers: keyed() }),
    ],
    ["name", () => app.request(`/pub/v2/bank?name=${encodeURIComponent(text)}`, { headers: keyed() })],
  ];

  it("a control character anywhere (NUL, ESC, DEL, NEL) is a 400 naming the field; no service hears of it", async () => {
    const before = reached.length;
    for (const c of ["\u0000", "\u001b", "\u007f", "\u0085"]) {
      for (const [field, send] of hostile(`ab${c}cd`)) {
        const res = await send();
        const body = await expectError(res, 400);
        expect(body.message, `${field} ${JSON.stringify(c)}`).toEqual([
          `${field} must not contain control characters or unpaired surrogates`,
        ]);
      }
    }
    // No order, payment, business or bank account was begun: nothing reached the services that allocate them.
    expect(reached.slice(before)).toEqual([]);
    // While the same request with plain text does reach orders (so the watch above would have seen it).
    expect((await post(Routes.offrampCreate.path, { ...offrampBody, description: "ab cd" })).status).toBe(
      201,
    );
    await eventually(() => {
      expect(reached.slice(before)).toEqual([Rpc.offrampCreate.subject]);
      return true;
    });
  });

  it("60 KB in any string field is a 400 naming the field's cap; no service hears of it", async () => {
    const before = reached.length;
    const huge = "2".repeat(60_000);
    for (const [field, send] of hostile(huge)) {
      const body = await expectError(await send(), 400);
      expect(body.message, field).toEqual([
        expect.stringMatching(new RegExp(`^${field} must be at most \\d+ characters$`)),
      ]);
    }
    // Addresses: what took base58 decoding seconds of CPU.
    for (const [path, body] of [
      [Routes.quoteCreate.path, { type: "OFF_RAMP", currency: "NGN", mint: huge, amount: 5 }],
      [Routes.onrampCreate.path, { ...onrampBody, recipient: huge }],
      [Routes.offrampCreate.path, { ...offrampBody, mint: huge }],
    ] as const) {
      const res = await post(path, body);
      const field = "recipient" in body && body.recipient === huge ? "recipient" : "mint";
      expect((await expectError(res, 400)).message).toEqual([
        `${field} must be at most ${MAX_ADDRESS_LENGTH} characters`,
      ]);
    }
    expect(reached.slice(before)).toEqual([]);
  });

  it("x-request-id is taken as the request's id only when it is 1 to 128 visible ASCII characters", async () => {
    const id = async (value: string) =>
      (
        await app.request("/pub/v2/rate?currency=EUR", { headers: keyed({ "x-request-id": value }) })
      ).headers.get("x-request-id");
    expect(await id("client-req_42")).toBe("client-req_42");
    for (const value of ["r".repeat(10_000), "a b", "clé"]) {
      const answered = await id(value);
      expect(answered, value).not.toBe(value);
      expect(answered, value).toMatch(/^[\x21-\x7e]{1,128}$/);
    }
  });

  it("deeply nested JSON is refused with a 400 (or 413 past the body limit), cheaply and in the documented shape", async () => {
    for (const depth of [1_000, 30_000, 100_000]) {
      const res = await app.request(Routes.offrampCreate.path, {
        method: "POST",
        headers: keyed(json),
        body: `{"description":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      });
      await expectError(res, 2 * depth > BODY_LIMIT_BYTES ? 413 : 400);
    }
  });
});

describe("unknown routes", () => {
  it("answer 404 in the documented shape, for an unknown path and for a known path's wrong method", async () => {
    const path = await expectError(await app.request("/pub/v2/nothing-here", { headers: keyed() }), 404);
    expect(path.message).toBe("Cannot GET /pub/v2/nothing-here");
    const method = await expectError(
      await app.request(Routes.rateGet.path, { method: "DELETE", headers: keyed() }),
      404,
    );
    expect(method.message).toBe("Cannot DELETE /pub/v2/rate");
  });
});

describe("a route's success answer comes from its table entry", () => {
  it("creates an offramp (201), hands orders the validated body, and replays it for the same Idempotency-Key", async () => {
    const before = received.get(Rpc.offrampCreate.subject)?.length ?? 0;
    const send = () =>
      app.request(Routes.offrampCreate.path, {
        method: "POST",
        headers: keyed({ ...json, [IDEMPOTENCY_KEY_HEADER]: "in-process-1" }),
        body: JSON.stringify(offrampBody),
      });
    const first = await send();
    expect(first.status).toBe(201);
    const order = (await first.json()) as { transactionType: string; status: string };
    expect(order).toMatchObject({ transactionType: "OFF_RAMP", status: "INIT" });
    const calls = received.get(Rpc.offrampCreate.subject) ?? [];
    expect(calls).toHaveLength(before + 1);
    // Amounts travel as decimal text; chain keeps the value sent.
    expect(calls.at(-1)).toMatchObject({ body: { ...offrampBody, amount: "5" } });
    expect(calls.at(-1)).toHaveProperty("idempotencyKey", expect.any(String));

    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get(IDEMPOTENT_REPLAYED_HEADER)).toBe("true");
    expect(await again.json()).toEqual(order);
    expect(received.get(Rpc.offrampCreate.subject)).toHaveLength(before + 1);
  });

  it("replays PATCH /pub/v2/webhook with its webhookSecret, though no secret is kept in the gateway's database", async () => {
    const send = () =>
      app.request(Routes.webhookUpdate.path, {
        method: "PATCH",
        headers: keyed({ ...json, [IDEMPOTENCY_KEY_HEADER]: "in-process-webhook-1" }),
        body: JSON.stringify({ rampWebhookURL: "https://example.com/hook" }),
      });
    const first = await send();
    expect(first.status).toBe(200);
    const text = await first.text();
    expect(JSON.parse(text)).toEqual({
      rampWebhookURL: "https://example.com/hook",
      paymentWebhookURL: null,
      webhookSecret: WEBHOOK_SECRET,
    });

    // Everything the gateway's database holds, records and answers alike.
    for (const { name } of await db.listCollections().toArray()) {
      const docs = JSON.stringify(await db.collection(name).find().toArray());
      expect(docs, name).not.toContain(WEBHOOK_SECRET);
      expect(docs, name).not.toContain("ab".repeat(32));
    }

    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get(IDEMPOTENT_REPLAYED_HEADER)).toBe("true");
    expect(await again.text()).toBe(text);
  });

  it("streams the CSV export with the entry's content type, the filter reaching orders", async () => {
    const res = await app.request("/pub/v2/transactions/export?status=COMPLETED", { headers: keyed() });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(Routes.transactionExport.ok.contentType);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="transactions.csv"');
    const lines = (await res.text()).trim().split(/\r?\n/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("user-1");
    expect(lines[2]).toContain("user-2");
    expect(received.get(Rpc.transactionExport.subject)?.at(-1)).toMatchObject({
      filter: { status: "COMPLETED" },
    });
    // The second chunk was asked of the process the first one named, not of the queue.
    expect(received.get(exportNext)).toEqual([{}]);
  });

  it("answers a slow export with its header first, then the rows once orders has them", async () => {
    const started = Date.now();
    const res = await app.request("/pub/v2/transactions/export?status=ERROR", { headers: keyed() });
    expect(res.status).toBe(200);
    // The answer did not wait for the whole first chunk.
    expect(Date.now() - started).toBeLessThan(6_000);
    const lines = (await res.text()).trim().split(/\r?\n/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("late");
  });
});

/** `METHOD /path` of a table entry as the OpenAPI document writes it. */
const described = (route: RouteDef) => `${route.method.toUpperCase()} ${route.path}`;

describe("/openapi.json", () => {
  it("lists every route the app serves, each under its table entry's operationId", async () => {
    const res = await app.request(Routes.openApiDocument.path);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as ReturnType<typeof buildOpenApiDocument>;
    const operations = new Map<string, string | undefined>();
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of ["get", "post", "put", "patch", "delete"] as const) {
        const op = item[method];
        if (op) operations.set(`${method.toUpperCase()} ${path}`, op.operationId);
      }
    }
    const served = new Set(
      app.routes
        .filter((r) => r.method !== "ALL")
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
    );
    expect([...served].sort()).toEqual([...operations.keys()].sort());
    for (const [id, route] of Object.entries(Routes as Record<string, RouteDef>)) {
      expect(operations.get(described(route)), described(route)).toBe(id);
    }
  });
});

describe("with RAMP_SANDBOX off", () => {
  it("does not serve the sandbox routes at all, and serves every other route", async () => {
    const production = await buildApp(await connect("gateway"), false);
    const served = new Set(production.routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`));
    for (const route of Object.values(Routes as Record<string, RouteDef>)) {
      expect(served.has(described(route)), described(route)).toBe(route.auth !== "sandbox");
    }
    const res = await production.request("/sandbox/v2/payment/65a1b2c3d4e5f60718293a4b/deposit", {
      method: "POST",
      headers: keyed(json),
      body: "{}",
    });
    await expectError(res, 404);
  });
});
