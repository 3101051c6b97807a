import { spawn } from "node:child_process";
import { join } from "node:path";
import { ErrorBody } from "@ramp/contracts";
import { freePort, REPO_ROOT } from "@ramp/devinfra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, type Stack, startStack } from "./support/stack.ts";
import { sandboxChainEnv } from "./support/tokens.ts";

let stack: Stack;
let pricingHealthPort: number;
beforeAll(async () => {
  pricingHealthPort = await freePort();
  stack = await startStack({
    services: ["pricing", "banking", "chain-watcher", "webhook-dispatcher", "gateway"],
    serviceEnv: {
      "chain-watcher": sandboxChainEnv,
      gateway: { RATE_LIMIT_PER_SECOND: "5", RATE_LIMIT_BURST: "5" },
      pricing: { HEALTH_PORT: String(pricingHealthPort) },
    },
  });
});
afterAll(async () => stack?.close());

describe("admin API", () => {
  it("requires the bearer token", async () => {
    const res = await stack.request("POST", "/admin/v1/businesses", { body: { name: "x" } });
    expect(res.status).toBe(401);
    const wrong = await stack.request("POST", "/admin/v1/businesses", {
      body: { name: "x" },
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
  });

  it("creates businesses and further keys, each with a webhook secret", async () => {
    const biz = await stack.createBusiness("Acme", 25);
    expect(biz.apiKey).toMatch(/^rk_/);
    expect(biz.webhookSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const key2 = await stack.admin("POST", `/businesses/${biz.id}/api-keys`);
    expect(key2.status).toBe(201);
    expect(key2.body.apiKey).not.toBe(biz.apiKey);
    expect(key2.body.webhookSecret).not.toBe(biz.webhookSecret);
    expect((await stack.admin("POST", "/businesses/0123456789abcdef01234567/api-keys")).status).toBe(404);
  });

  it("sets and removes market rates; a removed rate reads as 404", async () => {
    const biz = await stack.createBusiness("Rates");
    expect((await stack.admin("PUT", "/rates/GHS", { onRamp: 15.6, offRamp: 15.1 })).status).toBe(200);
    expect((await stack.client(biz.apiKey).get("/pub/v2/rate?currency=GHS")).body.onRampRate.rate).toBe(15.6);
    expect((await stack.admin("DELETE", "/rates/GHS")).status).toBe(204);
    expect((await stack.client(biz.apiKey).get("/pub/v2/rate?currency=GHS")).status).toBe(404);
    expect((await stack.admin("PUT", "/rates/EUR", { onRamp: 1, offRamp: 1 })).status).toBe(400);
    expect((await stack.admin("PUT", "/rates/NGN", { onRamp: -1, offRamp: 1 })).status).toBe(400);
  });
});

describe("admin CLI", () => {
  const cli = (...args: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(
        join(REPO_ROOT, "node_modules", ".bin", "tsx"),
        [join(REPO_ROOT, "scripts", "admin.ts"), ...args],
        {
          env: { ...process.env, RAMP_URL: stack.url, ADMIN_TOKEN },
        },
      );
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("exit", (code) => resolve({ code, out }));
    });

  it("wraps the admin API: creates a business and sets a rate its key then reads", async () => {
    const created = await cli("business", "create", "CLI Co", "100");
    expect(created.code).toBe(0);
    const apiKey = JSON.parse(created.out.slice(created.out.indexOf("{"))).apiKey;
    expect((await cli("rate", "set", "ZAR", "18.6", "18.1")).code).toBe(0);
    const rate = await stack.client(apiKey).get("/pub/v2/rate?currency=ZAR");
    expect(rate.body.onRampRate.rate).toBe(18.786);
    const bad = await cli("rate", "set", "ZAR", "x");
    expect(bad.code).toBe(2);
    expect(bad.out).toContain("usage:");
  });
});

describe("HTTP surface", () => {
  it("serves health, readiness, the OpenAPI document and its reference page", async () => {
    expect((await stack.request("GET", "/healthz")).status).toBe(200);
    // This stack runs no orders: the gateway is up, but not ready, and says which service is missing.
    const missing = await stack.request("GET", "/readyz");
    expect(missing.status).toBe(503);
    expect(missing.body).toEqual({
      status: "unavailable",
      services: {
        pricing: "ready",
        banking: "ready",
        orders: "no responders",
        "chain-watcher": "ready",
        "webhook-dispatcher": "ready",
      },
    });
    await stack.start("orders");
    try {
      expect((await stack.request("GET", "/readyz")).body).toEqual({
        status: "ready",
        services: {
          pricing: "ready",
          banking: "ready",
          orders: "ready",
          "chain-watcher": "ready",
          "webhook-dispatcher": "ready",
        },
      });
    } finally {
      await stack.stop("orders");
    }
    const doc = await stack.request("GET", "/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    expect(doc.body.info.version).toBe("2.0.0");
    expect(doc.body.paths["/pub/v2/offramp"].post).toBeDefined();
    const page = await fetch(`${stack.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/openapi.json");
  });

  it("answers unknown routes and malformed JSON in the documented error shape, never a stack trace", async () => {
    const biz = await stack.createBusiness("Shapes");
    const missing = await stack.client(biz.apiKey).get("/pub/v2/nothing-here");
    expect(missing.status).toBe(404);
    ErrorBody.parse(missing.body);
    const malformed = await stack.client(biz.apiKey).post("/pub/v2/bank-account", "{not json");
    expect(malformed.status).toBe(400);
    expect(ErrorBody.parse(malformed.body).error).toBe("Bad Request");
    expect(JSON.stringify(malformed.body)).not.toMatch(/at .*\.ts/);
  });

  it("accepts a JSON content-type on GETs", async () => {
    const biz = await stack.createBusiness("Quirks");
    const res = await stack.request("GET", "/pub/v2/bank?code=000013", {
      headers: { "x-api-key": biz.apiKey, "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
  });

  it("rate-limits per API key with 429 and Retry-After, leaving other keys alone", async () => {
    const noisy = await stack.createBusiness("Noisy");
    const quiet = await stack.createBusiness("Quiet");
    const results = await Promise.all(
      Array.from({ length: 12 }, () => stack.client(noisy.apiKey).get("/pub/v2/bank?code=000013")),
    );
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.body).toEqual({
      statusCode: 429,
      message: "Too Many Requests",
      error: "Too Many Requests",
    });
    expect(Number(limited[0]?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await stack.client(quiet.apiKey).get("/pub/v2/bank?code=000013")).status).toBe(200);
  });
});

describe("operations", () => {
  it("each service exposes health, readiness and Prometheus metrics on its HEALTH_PORT", async () => {
    const biz = await stack.createBusiness("Metrics");
    await stack.client(biz.apiKey).get("/pub/v2/rate?currency=NGN");
    const base = `http://127.0.0.1:${pricingHealthPort}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: "ready" });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(
      /ramp_rpc_requests_total\{service="pricing",subject="ramp\.pricing\.rates\.get",outcome="(OK|NOT_FOUND)"\} \d+/,
    );
    expect(text).toMatch(/ramp_http_requests_total\{method="GET",route="\/pub\/v2\/rate",status="\d+"\}/);
    // Services in one process share a registry: banking's consumers show how far behind they are.
    expect(text).toMatch(
      /ramp_consumer_lag_seconds\{service="banking",subject="ramp\.cmd\.banking\.payout"\} 0\n/,
    );
  });
});
