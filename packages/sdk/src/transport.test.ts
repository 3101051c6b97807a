import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sampleTransaction } from "@ramp/contracts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRampClient } from "./client.ts";
import { RampApiError } from "./errors.ts";

/** A real HTTP server on 127.0.0.1 answering from a script, recording what the client sent. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

let server: Server;
let baseUrl = "";
let script: Answer[] = [];
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      const answer = script.shift() ?? { status: 200, body: {} };
      const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? null);
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  script = [];
  seen = [];
});

const client = (maxAttempts = 3) =>
  createRampClient({ apiKey: "key_test", baseUrl, retry: { maxAttempts, baseDelayMs: 10 } });
const unavailable: Answer = {
  status: 503,
  body: { statusCode: 503, message: "Service Unavailable", error: "Service Unavailable" },
};
const onrampBody = {
  currency: "NGN",
  chain: "SOLANA",
  mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  recipient: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  amount: 10,
} as const;

async function caught(p: Promise<unknown>): Promise<RampApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RampApiError) return e;
    throw e;
  }
  throw new Error("the call succeeded");
}

describe("requests", () => {
  it("sends the key, the JSON body and a fresh Idempotency-Key per POST; none on GET or to /pub/bank", async () => {
    const tx = sampleTransaction();
    script = [
      { status: 201, body: tx },
      { status: 201, body: tx },
      { status: 200, body: tx },
      { status: 200, body: [] },
    ];
    const c = client();
    expect(await c.onramp.create(onrampBody)).toEqual(tx);
    await c.onramp.create(onrampBody);
    await c.transactions.get(tx.id);
    await c.banks.listPublic({ name: "guaranty" });

    const [first, second, get, pub] = seen;
    expect(first?.method).toBe("POST");
    expect(first?.url).toBe("/pub/v2/onramp");
    expect(first?.headers["x-api-key"]).toBe("key_test");
    expect(first?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(first?.body ?? "")).toEqual(onrampBody);
    expect(first?.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.headers["idempotency-key"]).not.toBe(first?.headers["idempotency-key"]);
    expect(get?.url).toBe(`/pub/v2/transaction/${tx.id}`);
    expect(get?.headers["idempotency-key"]).toBeUndefined();
    expect(pub?.url).toBe("/pub/bank?name=guaranty");
    expect(pub?.headers["x-api-key"]).toBeUndefined();
  });

  it("sends the caller's own Idempotency-Key as given, on PATCH too", async () => {
    script = [{ status: 200, body: { rampWebhookURL: null, paymentWebhookURL: null, webhookSecret: "x" } }];
    await client().webhooks.update({ rampWebhookURL: "" }, { idempotencyKey: "order-42" });
    expect(seen[0]?.method).toBe("PATCH");
    expect(seen[0]?.headers["idempotency-key"]).toBe("order-42");
  });
});

describe("retries", () => {
  it("retries 503 with backoff and succeeds, every try carrying the same Idempotency-Key", async () => {
    const tx = sampleTransaction();
    script = [unavailable, unavailable, { status: 201, body: tx }];
    expect(await client().onramp.create(onrampBody)).toEqual(tx);
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("waits as long as a 429's Retry-After asks before trying again", async () => {
    script = [
      {
        status: 429,
        headers: { "retry-after": "1" },
        body: { statusCode: 429, message: "Too Many Requests", error: "Too Many Requests" },
      },
      { status: 200, body: [] },
    ];
    await client().banks.list();
    expect(seen).toHaveLength(2);
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("gives up after the configured number of tries with the last error", async () => {
    script = [unavailable, unavailable, unavailable, unavailable];
    const error = await caught(client(3).rates.get({ currency: "NGN" }));
    expect(seen).toHaveLength(3);
    expect(error.statusCode).toBe(503);
    expect(error.retryable).toBe(true);
  });

  it("does not wait for a Retry-After longer than its bound; the error carries the server's ask", async () => {
    script = [
      {
        status: 429,
        headers: { "retry-after": "3600" },
        body: { statusCode: 429, message: "Too Many Requests", error: "Too Many Requests" },
      },
    ];
    const error = await caught(client().rates.get({ currency: "NGN" }));
    expect(seen).toHaveLength(1);
    expect(error.retryAfterSeconds).toBe(3600);
  });

  it("never retries a 4xx other than 429", async () => {
    script = [{ status: 404, body: { statusCode: 404, message: "Rate not found", error: "Not Found" } }];
    const error = await caught(client().rates.get({ currency: "GHS" }));
    expect(seen).toHaveLength(1);
    expect(error.retryable).toBe(false);
  });
});

describe("errors", () => {
  it("carries statusCode, error and every validation message as an array", async () => {
    const messages = ["property foo should not exist", "amount must be a positive number"];
    script = [{ status: 400, body: { statusCode: 400, message: messages, error: "Bad Request" } }];
    const error = await caught(client().payments.create({ method: "TOKEN", amount: -1 }));
    expect(error).toMatchObject({ statusCode: 400, error: "Bad Request", messages });
    expect(error.message).toContain("property foo should not exist");
  });

  it("turns a single message into a one-element array", async () => {
    script = [{ status: 401, body: { statusCode: 401, message: "Invalid API key", error: "Unauthorized" } }];
    const error = await caught(client().transactions.get("0123456789abcdef01234567"));
    expect(error).toMatchObject({ statusCode: 401, error: "Unauthorized", messages: ["Invalid API key"] });
  });

  it("keeps what a proxy said when the body is not the API's error shape", async () => {
    script = [{ status: 502, body: "<html>bad gateway</html>", headers: { "content-type": "text/html" } }];
    const error = await caught(client().rates.get({ currency: "NGN" }));
    expect(seen).toHaveLength(1);
    expect(error.statusCode).toBe(502);
    expect(error.messages).toEqual(["<html>bad gateway</html>"]);
  });
});
