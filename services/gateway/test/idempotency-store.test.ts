import { randomBytes } from "node:crypto";
import { createClaims, createLogger } from "@ramp/runtime";
import { type Db, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createIdempotencyStore, type IdempotencyStore } from "../src/idempotency/idempotency-store.ts";

declare module "vitest" {
  export interface ProvidedContext {
    mongoUrl: string;
  }
}

let client: MongoClient;
const stores: IdempotencyStore[] = [];
beforeAll(async () => {
  client = await MongoClient.connect(inject("mongoUrl"));
});
afterAll(async () => {
  for (const s of stores) await s.stop();
  await client?.close();
});

const log = createLogger("gateway-test", "silent");
const freshDb = () => client.db(`t${randomBytes(4).toString("hex")}_gateway_idem`);
/** Separate stores on one database, as separate gateway replicas: no in-process state hides a race. */
async function replicas(db: Db, count: number, opts = { ttlSeconds: 60, leaseMs: 60_000 }) {
  const made = Array.from({ length: count }, () =>
    createIdempotencyStore(db, createClaims(db), { ...opts, log }),
  );
  for (const s of made) await s.init();
  stores.push(...made);
  return made;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = { status: 201, contentType: "application/json", body: '{"id":"1"}' };

describe("idempotency records (real database)", () => {
  it("of many concurrent claims of one key exactly one runs; the others see it in progress", async () => {
    const all = await replicas(freshDb(), 8);
    const claims = await Promise.all(all.map((s) => s.claim("biz", "k", "fp")));
    expect(claims.filter((c) => c.kind === "claimed")).toHaveLength(1);
    expect(claims.filter((c) => c.kind === "in-progress")).toHaveLength(7);
  });

  it("replays a completed request, refuses another request under the key, runs again once released", async () => {
    const [s] = await replicas(freshDb(), 1);
    const first = await s!.claim("biz", "k", "fp");
    if (first.kind !== "claimed") throw new Error(first.kind);
    await s!.complete("biz", "k", first.token, ok);
    expect(await s!.claim("biz", "k", "fp")).toEqual({ kind: "replay", response: ok });
    expect(await s!.claim("biz", "k", "other")).toEqual({ kind: "mismatch" });
    expect((await s!.claim("other-biz", "k", "fp")).kind).toBe("claimed");

    const second = await s!.claim("biz", "k2", "fp");
    if (second.kind !== "claimed") throw new Error(second.kind);
    await s!.release("biz", "k2", second.token);
    expect((await s!.claim("biz", "k2", "fp")).kind).toBe("claimed");
  });

  it("a running record past its lease is taken over by exactly one repeat; the old holder cannot write", async () => {
    // The new holder's lease must outlast the racing claims even on a loaded machine: six claims racing
    // on two cores at load 8 once took more than 2 s, and a second takeover after that is correct.
    const all = await replicas(freshDb(), 6, { ttlSeconds: 60, leaseMs: 5_000 });
    const dead = await all[0]!.claim("biz", "k", "fp");
    if (dead.kind !== "claimed") throw new Error(dead.kind);
    expect((await all[1]!.claim("biz", "k", "fp")).kind).toBe("in-progress");
    await sleep(5_100);
    const claims = await Promise.all(all.map((s) => s.claim("biz", "k", "fp")));
    const winners = claims.filter((c) => c.kind === "claimed");
    expect(winners).toHaveLength(1);
    // The process that held the key before wakes up: its answer is not the one kept.
    await all[0]!.complete("biz", "k", dead.token, { ...ok, body: "stale" });
    expect((await all[1]!.claim("biz", "k", "fp")).kind).toBe("in-progress");
  });

  it("after a takeover the old holder cannot free the key either, and the new holder's answer is kept", async () => {
    const [dead, repeat, other] = await replicas(freshDb(), 3, { ttlSeconds: 60, leaseMs: 2_000 });
    const first = await dead!.claim("biz", "k", "fp");
    if (first.kind !== "claimed") throw new Error(first.kind);
    await sleep(2_100);
    const taken = await repeat!.claim("biz", "k", "fp");
    if (taken.kind !== "claimed") throw new Error(taken.kind);
    await dead!.release("biz", "k", first.token);
    expect((await other!.claim("biz", "k", "fp")).kind).toBe("in-progress");
    await dead!.complete("biz", "k", first.token, { ...ok, body: "stale" });
    await repeat!.complete("biz", "k", taken.token, ok);
    expect(await other!.claim("biz", "k", "fp")).toEqual({ kind: "replay", response: ok });
  });

  it("a released key is run by exactly one of many concurrent repeats, with any body", async () => {
    const all = await replicas(freshDb(), 6);
    const first = await all[0]!.claim("biz", "k", "fp");
    if (first.kind !== "claimed") throw new Error(first.kind);
    await all[0]!.release("biz", "k", first.token);
    const claims = await Promise.all(all.map((s) => s.claim("biz", "k", "another request")));
    expect(claims.filter((c) => c.kind === "claimed")).toHaveLength(1);
    expect(claims.filter((c) => c.kind === "in-progress")).toHaveLength(5);
  });

  it("claims, answers, replays, 409s and 422s address each document by _id alone", async () => {
    // FerretDB serves only an `_id`-only filter from its index: any other condition reads the whole
    // collection, so a request would get slower with every key ever stored.
    const watched = await MongoClient.connect(inject("mongoUrl"), { monitorCommands: true });
    const filters: { command: string; filter: Record<string, unknown> }[] = [];
    watched.on("commandStarted", (e) => {
      const c = e.command as Record<string, unknown>;
      if (e.commandName === "find")
        filters.push({ command: "find", filter: c.filter as Record<string, unknown> });
      for (const u of (c.updates ?? c.deletes ?? []) as { q: Record<string, unknown> }[])
        filters.push({ command: e.commandName, filter: u.q });
    });
    try {
      const db = watched.db(freshDb().databaseName);
      const s = createIdempotencyStore(db, createClaims(db), { ttlSeconds: 60, leaseMs: 60_000, log });
      await s.init();
      stores.push(s);
      const first = await s.claim("biz", "k", "fp");
      if (first.kind !== "claimed") throw new Error(first.kind);
      expect((await s.claim("biz", "k", "fp")).kind).toBe("in-progress");
      await s.complete("biz", "k", first.token, ok);
      expect((await s.claim("biz", "k", "fp")).kind).toBe("replay");
      expect((await s.claim("biz", "k", "other")).kind).toBe("mismatch");
      expect(filters.length).toBeGreaterThan(0);
      for (const f of filters) expect(Object.keys(f.filter), JSON.stringify(f)).toEqual(["_id"]);
    } finally {
      await watched.close();
    }
  });

  it("an expired record is gone, whatever the database does with TTL indexes", async () => {
    const [s] = await replicas(freshDb(), 1, { ttlSeconds: 1, leaseMs: 60_000 });
    const first = await s!.claim("biz", "k", "fp");
    if (first.kind !== "claimed") throw new Error(first.kind);
    await s!.complete("biz", "k", first.token, ok);
    await sleep(1_100);
    expect((await s!.claim("biz", "k", "another request")).kind).toBe("claimed");
  });
});
