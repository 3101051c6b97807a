import { spawn } from "node:child_process";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { REPO_ROOT } from "@ramp/devinfra";
import { callRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, eventually, type Stack, startStack } from "./support/stack.ts";

/**
 * Two gateways and two pricings on one NATS and one database, as `RAMP_REPLICAS=2` runs them. Rates, fee
 * profiles and API keys are served from each replica's memory; a change made through one replica must
 * be what every replica answers within one second.
 */
let stack: Stack;
let other: Awaited<ReturnType<Stack["replica"]>>;
let nc: NatsConnection;
beforeAll(async () => {
  stack = await startStack({ services: ["pricing", "webhook-dispatcher", "gateway"] });
  await stack.replica("pricing");
  other = await stack.replica("gateway");
  nc = await stack.connectAs("gateway");
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const RATE = "/pub/v2/rate?currency=NGN";
/** Reads in a row that must agree: the queue group spreads them over both pricing replicas. */
const STREAK = 20;

/**
 * Called as the change is answered. Polls (no fixed sleep) until STREAK reads in a row pass `check`;
 * any read started more than one second after the change that still fails is a failure. Reads land on
 * either pricing replica at random, so a replica still answering the old value breaks the streak: its
 * chance of dodging twenty reads is one in a million. A slow machine only makes the streak take longer.
 */
async function everyReplicaWithinOneSecond(read: () => Promise<boolean>) {
  const deadline = Date.now() + 1_000;
  let streak = 0;
  while (streak < STREAK) {
    const started = Date.now();
    if (await read()) streak++;
    else if (started > deadline)
      throw new Error("a replica still answers the old value 1 s after the change");
    else streak = 0;
  }
}

/** Both gateways and (almost surely) both pricings hold the current value before the change. */
async function warm(apiKey: string) {
  for (let i = 0; i < STREAK; i++) {
    expect((await stack.client(apiKey).get(RATE)).status).toBe(200);
    expect((await other.client(apiKey).get(RATE)).status).toBe(200);
  }
}

describe("a change through one replica is what every replica answers within 1 s", () => {
  it("a new market rate", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("Rates", 0);
    await warm(biz.apiKey);
    expect((await stack.admin("PUT", "/rates/NGN", { onRamp: 1700, offRamp: 1650 })).status).toBe(200);
    await everyReplicaWithinOneSecond(async () => {
      const res = await other.client(biz.apiKey).get(RATE);
      return res.status === 200 && res.body.onRampRate.rate === 1700 && res.body.offRampRate.rate === 1650;
    });
  });

  it("a removed market rate reads as 404 Rate not found", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("Removed", 0);
    await warm(biz.apiKey);
    expect((await other.admin("DELETE", "/rates/NGN")).status).toBe(204);
    await everyReplicaWithinOneSecond(async () => {
      const res = await stack.client(biz.apiKey).get(RATE);
      return res.status === 404 && res.body.message === "Rate not found";
    });
  });

  it("a business's new fee", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("Fees", 0);
    await warm(biz.apiKey);
    // No admin route changes a fee yet: the profile is set the way the gateway sets it, over NATS.
    await callRpc(nc, Rpc.profileSet, { businessId: biz.id, feeBps: 200 });
    await everyReplicaWithinOneSecond(async () => {
      const res = await other.client(biz.apiKey).get(RATE);
      return res.status === 200 && res.body.onRampRate.rate === 1632 && res.body.offRampRate.rate === 1470;
    });
  });

  it("a new API key works on the other gateway", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("Keys", 0);
    const issued = await stack.admin("POST", `/businesses/${biz.id}/api-keys`);
    expect(issued.status).toBe(201);
    await everyReplicaWithinOneSecond(
      async () => (await other.client(issued.body.apiKey).get(RATE)).status === 200,
    );
  });

  it("a revoked API key answers 401 Invalid API key on the other gateway", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("Revoked", 0);
    const kept = await stack.admin("POST", `/businesses/${biz.id}/api-keys`);
    await warm(biz.apiKey);
    expect((await stack.admin("POST", "/api-keys/revoke", { apiKey: biz.apiKey })).status).toBe(204);
    expect((await stack.client(biz.apiKey).get(RATE)).status).toBe(401);
    await everyReplicaWithinOneSecond(async () => {
      const res = await other.client(biz.apiKey).get(RATE);
      return res.status === 401 && res.body.message === "Invalid API key";
    });
    // Only that key: the business's other key still works, and revoking twice is not an error.
    expect((await other.client(kept.body.apiKey).get(RATE)).status).toBe(200);
    expect((await other.admin("POST", "/api-keys/revoke", { apiKey: biz.apiKey })).status).toBe(204);
    expect((await other.admin("POST", "/api-keys/revoke", { apiKey: "rk_never-issued" })).status).toBe(404);
    expect((await other.admin("POST", "/api-keys/revoke", {})).status).toBe(400);
  });
});

describe("admin CLI", () => {
  it("revokes a key: `key revoke <apiKey>`", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("CLI revoke", 0);
    await warm(biz.apiKey);
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn(
        join(REPO_ROOT, "node_modules", ".bin", "tsx"),
        [join(REPO_ROOT, "scripts", "admin.ts"), "key", "revoke", biz.apiKey],
        { env: { ...process.env, RAMP_URL: other.url, ADMIN_TOKEN } },
      );
      let text = "";
      child.stdout.on("data", (d) => (text += d));
      child.stderr.on("data", (d) => (text += d));
      child.on("exit", (code) => resolve({ code, text }));
    });
    expect(out.code, out.text).toBe(0);
    expect(out.text).toContain("204");
    await everyReplicaWithinOneSecond(async () => (await stack.client(biz.apiKey).get(RATE)).status === 401);
  });
});

describe("rates.get for a caller that keeps the answer", () => {
  it("with `fresh`, is computed from pricing's database, not from a replica's memory", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("Fresh", 0);
    const ask = (fresh?: boolean) =>
      callRpc(nc, Rpc.ratesGet, { businessId: biz.id, currency: "NGN", ...(fresh && { fresh }) });
    // Both pricing replicas (almost surely) hold the rate in memory.
    for (let i = 0; i < STREAK; i++) expect((await ask()).onRampRate.rate).toBe(1600);
    const rates = (await stack.db("pricing")).collection<{ _id: string; onRamp: string }>("market_rates");
    await rates.updateOne({ _id: "NGN" }, { $set: { onRamp: "1888" } });
    expect((await ask()).onRampRate.rate).toBe(1600);
    expect((await ask(true)).onRampRate.rate).toBe(1888);
    // Put back what the replicas hold, so later tests start from a rate every replica agrees on.
    await stack.setRate("NGN", 1600, 1500);
  });
});

// Last, as it restarts NATS.
describe("a replica that may have missed a change", () => {
  it("reads its database again after a NATS reconnect, and forgets the rates it kept", async () => {
    await stack.setRate("NGN", 1600, 1500);
    const biz = await stack.createBusiness("Missed", 0);
    const rated = await stack.createBusiness("Missed rate", 0);
    await warm(biz.apiKey);
    await warm(rated.apiKey);
    // A revoke and a rate whose changes never reached anyone: written to the databases behind the backs
    // of the gateways and pricing.
    const keys = (await stack.db("gateway")).collection<{ businessId: string; revokedAt: Date | null }>(
      "api_keys",
    );
    await keys.updateMany({ businessId: biz.id }, { $set: { revokedAt: new Date() } });
    const rates = (await stack.db("pricing")).collection<{ _id: string; onRamp: string }>("market_rates");
    await rates.updateOne({ _id: "NGN" }, { $set: { onRamp: "1777" } });
    expect((await other.client(biz.apiKey).get(RATE)).status).toBe(200);
    expect((await other.client(rated.apiKey).get(RATE)).body.onRampRate.rate).toBe(1600);
    await stack.restartNats();
    await eventually(async () =>
      (await other.client(biz.apiKey).get(RATE)).status === 401 ? true : undefined,
    );
    expect((await stack.client(biz.apiKey).get(RATE)).status).toBe(401);
    for (const gateway of [stack, other]) {
      await eventually(async () => {
        const res = await gateway.client(rated.apiKey).get(RATE);
        return res.status === 200 && res.body.onRampRate.rate === 1777 ? true : undefined;
      });
    }
  });
});
