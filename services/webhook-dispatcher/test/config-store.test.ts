import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createConfigStore } from "../src/config-store.ts";

declare module "vitest" {
  export interface ProvidedContext {
    mongoUrl: string;
  }
}

let client: MongoClient;
beforeAll(async () => {
  client = await MongoClient.connect(inject("mongoUrl"));
});
afterAll(async () => client?.close());

describe("webhook config store (real database)", () => {
  it("issues exactly one secret under concurrent first reads, and stores it encrypted", async () => {
    const db = client.db(`t${randomBytes(4).toString("hex")}_webhook_cfg`);
    const key = randomBytes(32);
    // Separate stores: no shared in-process cache can hide a race.
    const stores = Array.from({ length: 8 }, () => createConfigStore(db, key));
    const got = await Promise.all(stores.map((s) => s.get("key-1")));
    const secrets = new Set(got.map((c) => c.webhookSecret));
    expect(secrets.size).toBe(1);
    const [secret] = [...secrets];
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const raw = await db.collection("webhook_configs").findOne({ _id: "key-1" as never });
    expect(JSON.stringify(raw)).not.toContain(secret!.slice(6));
    expect(await createConfigStore(db, key).get("key-1")).toEqual(got[0]);
    await db.dropDatabase();
  });

  it("updates only the fields sent; an empty string clears", async () => {
    const db = client.db(`t${randomBytes(4).toString("hex")}_webhook_cfg`);
    const store = createConfigStore(db, randomBytes(32));
    const first = await store.update("k", { paymentWebhookURL: "https://p.example.com" });
    expect(first).toMatchObject({ rampWebhookURL: null, paymentWebhookURL: "https://p.example.com" });
    const second = await store.update("k", { rampWebhookURL: "https://r.example.com" });
    expect(second).toEqual({ ...first, rampWebhookURL: "https://r.example.com" });
    const cleared = await store.update("k", { paymentWebhookURL: "" });
    expect(cleared).toEqual({ ...second, paymentWebhookURL: null });
    await db.dropDatabase();
  });
});
