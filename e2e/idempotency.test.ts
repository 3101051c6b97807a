import type { Msg, NatsConnection } from "@nats-io/transport-node";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";

let stack: Stack;
let nc: NatsConnection;
let asBanking: NatsConnection;
let asOrders: NatsConnection;
let biz: { id: string; apiKey: string };
beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Idempotent Co");
  // Each connection may do only what its service may: calls as the gateway, the rail's side as
  // banking (to catch a request on its way), its re-sending as orders.
  nc = await stack.connectAs("gateway");
  asBanking = await stack.connectAs("banking");
  asOrders = await stack.connectAs("orders");
});
afterAll(async () => {
  await nc?.close();
  await asBanking?.close();
  await asOrders?.close();
  await stack?.close();
});

let n = 0;
const freshKey = () => `test-${Date.now()}-${++n}`;
const onrampBody = {
  currency: "NGN" as const,
  chain: "ETHEREUM" as const,
  mint: ETH_USDC,
  recipient: EVM_RECIPIENT,
  amount: 10,
};
/** The same body as the gateway hands it to orders: amounts as decimal strings. */
const onrampWire = { ...onrampBody, amount: "10" };
const post = (apiKey: string, path: string, body: unknown, key?: string) =>
  stack.request("POST", path, {
    body,
    headers: { "x-api-key": apiKey, ...(key !== undefined ? { [IDEMPOTENCY_KEY_HEADER]: key } : {}) },
  });
const replayed = (r: { headers: Headers }) => r.headers.get(IDEMPOTENT_REPLAYED_HEADER) === "true";

async function ordersOf(businessId: string): Promise<number> {
  return (await stack.db("orders")).collection("orders").countDocuments({ businessId });
}
async function fiatDepositsFor(orderId: string): Promise<number> {
  return (await stack.db("banking")).collection("fiat_deposits").countDocuments({ ref: orderId });
}
async function newOnramp(): Promise<{ id: string }> {
  const res = await post(biz.apiKey, "/pub/v2/onramp", onrampBody);
  expect(res.status).toBe(201);
  return res.body;
}

describe("Idempotency-Key on POST/PATCH", () => {
  it("a repeat gets the same status and body with Idempotent-Replayed: true, and creates one order", async () => {
    const key = freshKey();
    const before = await ordersOf(biz.id);
    const first = await post(biz.apiKey, "/pub/v2/onramp", onrampBody, key);
    expect(first.status).toBe(201);
    expect(first.headers.get(IDEMPOTENT_REPLAYED_HEADER)).toBeNull();
    // The same JSON in another spelling is the same request.
    const spelled = `{"amount":10.0, "recipient":"${EVM_RECIPIENT}","mint":"${ETH_USDC}","chain":"ETHEREUM","currency":"NGN"}`;
    const again = await post(biz.apiKey, "/pub/v2/onramp", spelled, key);
    expect(again.status).toBe(201);
    expect(replayed(again)).toBe(true);
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect(await ordersOf(biz.id)).toBe(before + 1);
  });

  it("the same key with a different body or path → 422, and nothing is created", async () => {
    const key = freshKey();
    expect((await post(biz.apiKey, "/pub/v2/onramp", onrampBody, key)).status).toBe(201);
    const before = await ordersOf(biz.id);
    const otherBody = await post(biz.apiKey, "/pub/v2/onramp", { ...onrampBody, amount: 11 }, key);
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({
      statusCode: 422,
      message: "Idempotency-Key reused with a different request",
      error: "Unprocessable Entity",
    });
    const otherPath = await post(
      biz.apiKey,
      "/pub/v2/payment",
      { chain: "BASE", mint: BASE_USDC, amount: 10 },
      key,
    );
    expect(otherPath.status).toBe(422);
    expect(await ordersOf(biz.id)).toBe(before);
  });

  it("concurrent requests with one key: one runs, the others get 409 or its replay; one order", async () => {
    const key = freshKey();
    const before = await ordersOf(biz.id);
    const all = await Promise.all(
      Array.from({ length: 8 }, () => post(biz.apiKey, "/pub/v2/onramp", onrampBody, key)),
    );
    const ran = all.filter((r) => r.status === 201 && !replayed(r));
    expect(ran).toHaveLength(1);
    for (const r of all) {
      if (r.status === 409)
        expect(r.body).toEqual({
          statusCode: 409,
          message: "A request with this Idempotency-Key is in progress",
          error: "Conflict",
        });
      else expect(r.body).toEqual(ran[0]?.body);
    }
    expect(await ordersOf(biz.id)).toBe(before + 1);
  });

  it("an invalid key → 400 in the error shape, and nothing is created", async () => {
    const before = await ordersOf(biz.id);
    for (const key of ["", "k".repeat(256), "two words", "tab\there", "cl\u00e9"]) {
      const res = await post(biz.apiKey, "/pub/v2/onramp", onrampBody, key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body).toEqual({
        statusCode: 400,
        message: "Idempotency-Key must be 1 to 255 visible ASCII characters",
        error: "Bad Request",
      });
    }
    expect((await post(biz.apiKey, "/pub/v2/onramp", onrampBody, "~".repeat(255))).status).toBe(201);
    expect(await ordersOf(biz.id)).toBe(before + 1);
  });

  it("a 4xx is final: replayed as it was, even once the cause is gone", async () => {
    const key = freshKey();
    const body = { ...onrampBody, currency: "GHS" };
    const first = await post(biz.apiKey, "/pub/v2/onramp", body, key);
    expect(first.status).toBe(404);
    await stack.setRate("GHS", 15, 14);
    const again = await post(biz.apiKey, "/pub/v2/onramp", body, key);
    expect(again.status).toBe(404);
    expect(replayed(again)).toBe(true);
    expect(again.body).toEqual(first.body);
    // A new key is a new request, which now succeeds.
    expect((await post(biz.apiKey, "/pub/v2/onramp", body, freshKey())).status).toBe(201);
  });

  it("keys are per business: the same key for two businesses makes two orders", async () => {
    const other = await stack.createBusiness("Other Co");
    const key = freshKey();
    const a = await post(biz.apiKey, "/pub/v2/onramp", onrampBody, key);
    const b = await post(other.apiKey, "/pub/v2/onramp", onrampBody, key);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(replayed(b)).toBe(false);
    expect(b.body.id).not.toBe(a.body.id);
    expect(await ordersOf(other.id)).toBe(1);
  });

  it("PATCH is covered too", async () => {
    const key = freshKey();
    const patch = (body: unknown) =>
      stack.request("PATCH", "/pub/v2/webhook", {
        body,
        headers: { "x-api-key": biz.apiKey, [IDEMPOTENCY_KEY_HEADER]: key },
      });
    const first = await patch({ rampWebhookURL: "http://127.0.0.1:9/a" });
    expect(first.status).toBe(200);
    const again = await patch({ rampWebhookURL: "http://127.0.0.1:9/a" });
    expect([again.status, replayed(again)]).toEqual([200, true]);
    expect((await patch({ rampWebhookURL: "http://127.0.0.1:9/b" })).status).toBe(422);
  });
});

describe("sandbox deposits: a retry never pays twice", () => {
  it("15 concurrent deposits with one key on one order record at most one deposit", async () => {
    const tx = await newOnramp();
    const key = freshKey();
    const all = await Promise.all(
      Array.from({ length: 15 }, () => post(biz.apiKey, `/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {}, key)),
    );
    const ran = all.filter((r) => r.status === 202 && !replayed(r));
    expect(ran).toHaveLength(1);
    for (const r of all) expect([202, 409]).toContain(r.status);
    expect(await fiatDepositsFor(tx.id)).toBe(1);
    await eventually(async () => ((await stack.fundsRecorded(tx.id)) === 1 ? true : undefined));
  });

  it("a 503 whose deposit was in fact recorded: the retry with the same key records nothing more", async () => {
    const tx = await newOnramp();
    const key = freshKey();
    // Banking goes away; the deposit request is caught on its way, handed to banking once it is back,
    // and its answer is lost: the client sees 503 although the rail recorded the transfer.
    await stack.stop("banking");
    const sub = asBanking.subscribe(Rpc.sandboxFiatDeposit.subject, { max: 1 });
    const lostAnswer = (async () => {
      for await (const msg of sub) {
        await stack.start("banking");
        await asOrders.request(msg.subject, msg.data, { timeout: 8_000, headers: msg.headers });
        msg.respond(JSON.stringify({ ok: false, error: { code: "UNAVAILABLE", message: "lost" } }));
      }
    })();
    const first = await post(biz.apiKey, `/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {}, key);
    await lostAnswer;
    expect(first.status).toBe(503);
    expect(await fiatDepositsFor(tx.id)).toBe(1);

    // A 5xx is not kept: the retry runs again (no replay), and the rail dedupes the transfer.
    const retry = await post(biz.apiKey, `/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {}, key);
    expect(replayed(retry)).toBe(false);
    // 202 while the order still awaits funds; 400 once the first deposit has moved it on.
    expect([202, 400]).toContain(retry.status);
    expect(await fiatDepositsFor(tx.id)).toBe(1);
    const done = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`);
      return r.body.status === "COMPLETED" ? r.body : undefined;
    });
    expect(done.status).toBe("COMPLETED");
    expect(await stack.fundsRecorded(tx.id)).toBe(1);
  });

  it("a 503 whose deposit lands late, after the retry ran: still one deposit", async () => {
    const tx = await newOnramp();
    const key = freshKey();
    // The first attempt's message is held and answered 503; the retry then runs in full, and only
    // afterwards does the held message reach banking, as a slow one would.
    await stack.stop("banking");
    const sub = asBanking.subscribe(Rpc.sandboxFiatDeposit.subject, { max: 1 });
    let held: Msg | undefined;
    const answered = (async () => {
      for await (const msg of sub) {
        held = msg;
        msg.respond(JSON.stringify({ ok: false, error: { code: "UNAVAILABLE", message: "lost" } }));
      }
    })();
    const first = await post(biz.apiKey, `/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {}, key);
    await answered;
    expect(first.status).toBe(503);
    await stack.start("banking");

    const retry = await post(biz.apiKey, `/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {}, key);
    expect([retry.status, replayed(retry)]).toEqual([202, false]);
    expect(await fiatDepositsFor(tx.id)).toBe(1);
    if (!held) throw new Error("the first attempt never reached the rail");
    const late = await asOrders.request(held.subject, held.data, { timeout: 8_000, headers: held.headers });
    // The rail answers with the retry's own reference: the same transfer, stored once.
    expect(late.json()).toEqual({ ok: true, data: { reference: retry.body.reference } });
    expect(await fiatDepositsFor(tx.id)).toBe(1);
    await eventually(async () => ((await stack.fundsRecorded(tx.id)) === 1 ? true : undefined));
  });

  it("the owners dedupe by key even with no gateway record in front (two retries racing)", async () => {
    const fiat = await newOnramp();
    const idempotencyKey = `retry-${freshKey()}`;
    const deposit = (kind: "onramp" | "offramp", id: string) =>
      callRpc(nc, Rpc.sandboxDeposit, { businessId: biz.id, kind, id, idempotencyKey }).catch(
        (err: Error) => err,
      );
    const [a, b] = await Promise.all([deposit("onramp", fiat.id), deposit("onramp", fiat.id)]);
    for (const r of [a, b]) if (!(r instanceof Error)) expect(r.reference).toMatch(/^SBX-IN-/);
    expect(await fiatDepositsFor(fiat.id)).toBe(1);

    const off = await post(biz.apiKey, "/pub/v2/offramp", {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      mint: BASE_USDC,
      chain: "BASE",
      amount: 12,
    });
    expect(off.status).toBe(201);
    const [c, d] = await Promise.all([deposit("offramp", off.body.id), deposit("offramp", off.body.id)]);
    const refs = [c, d]
      .filter((r) => !(r instanceof Error))
      .map((r) => (r as { reference: string }).reference);
    expect(new Set(refs).size).toBe(1);
    const chainDeposits = (await stack.db("chain-watcher")).collection("deposits");
    expect(await chainDeposits.countDocuments({ ref: off.body.id })).toBe(1);
  });

  it("order and payment creation: a retry of the same keyed request returns the first, never a second", async () => {
    const idempotencyKey = `create-${freshKey()}`;
    const caller = { businessId: biz.id, apiKeyId: "k", idempotencyKey };
    const before = await ordersOf(biz.id);
    const [a, b] = await Promise.all([
      callRpc(nc, Rpc.onrampCreate, { ...caller, body: onrampWire }, undefined, 30_000),
      callRpc(nc, Rpc.onrampCreate, { ...caller, body: onrampWire }, undefined, 30_000),
    ]);
    expect(b.id).toBe(a.id);
    const later = await callRpc(nc, Rpc.onrampCreate, { ...caller, body: onrampWire });
    expect(later).toEqual(a);
    expect(await ordersOf(biz.id)).toBe(before + 1);

    const payment = { method: "FIAT" as const, currency: "NGN" as const, amount: "1000" };
    const p1 = await callRpc(nc, Rpc.paymentCreate, { ...caller, body: payment });
    const p2 = await callRpc(nc, Rpc.paymentCreate, { ...caller, body: payment });
    expect(p2).toEqual(p1);
    const payments = (await stack.db("orders")).collection("payments");
    expect(await payments.countDocuments({ businessId: biz.id })).toBe(1);
  });
});
