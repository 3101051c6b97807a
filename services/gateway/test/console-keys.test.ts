import type { ApiKeyDto, AuditEntryDto } from "@ramp/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Browser,
  type ConsoleGateway,
  consoleCall,
  createOperator,
  signIn,
  startConsoleGateway,
} from "./console-support.ts";

const PASSWORD = "a long enough password";
let gw: ConsoleGateway;
let ops: Browser;
let owner: Browser;
let businessA: string;
let businessB: string;

/** A keyed public request that passes authentication and then fails validation: 400 means the key works. */
const usingKey = async (apiKey: string) => {
  const res = await gw.app.request("/pub/v2/transaction/not-an-id", { headers: { "x-api-key": apiKey } });
  return { status: res.status, message: ((await res.json()) as { message: unknown }).message };
};

const lastAudit = async () =>
  (await gw.db.collection("audit").find().sort({ _id: -1 }).limit(1).next()) as unknown as AuditEntryDto & {
    businessId: string;
  };

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_keys" });
  businessB = (await gw.keys.createBusiness("B")).id;
  await createOperator(gw.app, "ops@ops.example", PASSWORD, "operator");
  ops = (await signIn(gw.app, "ops@ops.example", PASSWORD)).browser;
  const created = await consoleCall(gw.app, ops, "POST", "/console/v1/businesses", {
    name: "Acme",
    feeBps: 25,
  });
  expect(created.status).toBe(201);
  const body = (await created.json()) as { id: string; name: string; apiKey: string; webhookSecret: string };
  expect(body).toEqual({
    id: expect.any(String),
    name: "Acme",
    apiKey: expect.stringMatching(/^rk_/),
    webhookSecret: expect.stringMatching(/^whsec_/),
  });
  businessA = body.id;
  expect(gw.profiles).toContainEqual({ businessId: businessA, feeBps: 25 });
  await consoleCall(gw.app, ops, "POST", "/console/v1/members", {
    email: "owner@a.example",
    password: PASSWORD,
    role: "owner",
    businessId: businessA,
  });
  owner = (await signIn(gw.app, "owner@a.example", PASSWORD)).browser;
});
afterAll(async () => gw?.stop());

describe("API keys in the console", () => {
  it("an owner creates a key shown once, lists it by prefix, and revoking it makes it answer 401 at once", async () => {
    const created = await consoleCall(gw.app, owner, "POST", "/console/v1/keys", { name: "backend" });
    expect(created.status).toBe(201);
    const { id, apiKey, webhookSecret } = (await created.json()) as {
      id: string;
      apiKey: string;
      webhookSecret: string;
    };
    expect(webhookSecret).toMatch(/^whsec_/);
    expect((await usingKey(apiKey)).status).toBe(400);

    const list = await consoleCall(gw.app, owner, "GET", "/console/v1/keys");
    expect(list.status).toBe(200);
    const { data } = (await list.json()) as { data: ApiKeyDto[] };
    expect(data).toHaveLength(2); // the business's first key and this one
    expect(data[0]).toEqual({
      id,
      prefix: apiKey.slice(0, 8),
      name: "backend",
      createdAt: expect.stringMatching(/Z$/),
      revokedAt: null,
      rampWebhookURL: "https://example.com/hook",
      paymentWebhookURL: null,
    });
    expect(JSON.stringify(data)).not.toContain(apiKey);
    expect(JSON.stringify(data)).not.toContain("whsec_");

    const revoked = await consoleCall(gw.app, owner, "POST", `/console/v1/keys/${id}/revoke`);
    expect(revoked.status).toBe(204);
    expect(await usingKey(apiKey)).toEqual({ status: 401, message: "Invalid API key" });
    const after = (await (await consoleCall(gw.app, owner, "GET", "/console/v1/keys")).json()) as {
      data: ApiKeyDto[];
    };
    expect(after.data[0]?.revokedAt).toMatch(/Z$/);
    const entry = await lastAudit();
    expect(entry.action).toBe("consoleKeyRevoke");
    expect(entry.target).toBe(`api-key:${id}`);
    expect(entry.businessId).toBe(businessA);
  });

  it("a member cannot see or revoke another business's keys: 404", async () => {
    const { apiKeyId, apiKey } = await gw.keys.issueKey(businessB, "b's");
    expect((await consoleCall(gw.app, owner, "GET", `/console/v1/keys?businessId=${businessB}`)).status).toBe(
      404,
    );
    expect((await consoleCall(gw.app, owner, "POST", `/console/v1/keys/${apiKeyId}/revoke`)).status).toBe(
      404,
    );
    expect(
      (await consoleCall(gw.app, owner, "POST", "/console/v1/keys", { name: "x", businessId: businessB }))
        .status,
    ).toBe(404);
    expect((await usingKey(apiKey)).status).toBe(400);
  });

  it("an operator names the business (400 without), and may revoke any business's key", async () => {
    const without = await consoleCall(gw.app, ops, "GET", "/console/v1/keys");
    expect(without.status).toBe(400);
    const { apiKeyId, apiKey } = await gw.keys.issueKey(businessB, "to revoke");
    const listed = (await (
      await consoleCall(gw.app, ops, "GET", `/console/v1/keys?businessId=${businessB}`)
    ).json()) as { data: ApiKeyDto[] };
    expect(listed.data.map((k) => k.id)).toContain(apiKeyId);
    expect((await consoleCall(gw.app, ops, "POST", `/console/v1/keys/${apiKeyId}/revoke`)).status).toBe(204);
    expect((await usingKey(apiKey)).status).toBe(401);
  });
});

describe("businesses", () => {
  it("lists businesses for operators, newest first", async () => {
    const res = await consoleCall(gw.app, ops, "GET", "/console/v1/businesses");
    const { data } = (await res.json()) as {
      data: { id: string; name: string; feeBps: number; suspended: boolean }[];
    };
    expect(data.map((b) => b.id)).toEqual([businessA, businessB]);
    expect(data[0]).toMatchObject({ name: "Acme", feeBps: 25, suspended: false });
  });

  it("a fee change goes to pricing first, and is audited with before and after", async () => {
    const res = await consoleCall(gw.app, ops, "PATCH", `/console/v1/businesses/${businessA}`, {
      feeBps: 40,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { feeBps: number }).feeBps).toBe(40);
    expect(gw.profiles.at(-1)).toEqual({ businessId: businessA, feeBps: 40 });
    const entry = await lastAudit();
    expect(entry).toMatchObject({
      action: "consoleBusinessUpdate",
      before: { feeBps: 25, suspended: false },
      after: { feeBps: 40, suspended: false },
    });
    expect((await consoleCall(gw.app, ops, "PATCH", `/console/v1/businesses/${businessA}`, {})).status).toBe(
      400,
    );
    expect(
      (await consoleCall(gw.app, ops, "PATCH", `/console/v1/businesses/${"c".repeat(24)}`, { feeBps: 1 }))
        .status,
    ).toBe(404);
  });

  it("a suspended business's keys get 403 Business suspended; lifting it restores them", async () => {
    const { apiKey } = await gw.keys.issueKey(businessA, "live");
    expect((await usingKey(apiKey)).status).toBe(400);
    expect(
      (await consoleCall(gw.app, ops, "PATCH", `/console/v1/businesses/${businessA}`, { suspended: true }))
        .status,
    ).toBe(200);
    expect(await usingKey(apiKey)).toEqual({ status: 403, message: "Business suspended" });
    // Another business is untouched; the members still sign in and read.
    expect((await usingKey((await gw.keys.issueKey(businessB)).apiKey)).status).toBe(400);
    expect((await consoleCall(gw.app, owner, "GET", "/console/v1/keys")).status).toBe(200);
    expect(
      (await consoleCall(gw.app, ops, "PATCH", `/console/v1/businesses/${businessA}`, { suspended: false }))
        .status,
    ).toBe(200);
    expect((await usingKey(apiKey)).status).toBe(400);
  });
});
