import type { IncomingHttpHeaders } from "node:http";
import type { ApiKeyDto, AuditEntryDto, WebhookTestResultDto } from "@ramp/contracts";
import { verifyWebhook } from "@ramp/sdk";
import { endpointKey, loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type Browser,
  type ConsoleGateway,
  consoleCall,
  signedInPeople,
  startConsoleGateway,
  startReceiver,
} from "./console-support.ts";

/** A business's webhook URLs set and tested from the console, through the real dispatcher. */
const PASSWORD = "a long enough password";
let gw: ConsoleGateway;
let dispatcher: { stop(): Promise<void> };
let mongo: MongoClient;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let url: string;
let received: Array<{ headers: IncomingHttpHeaders; body: string }>;
let ops: Browser;
let owner: Browser;
let developer: Browser;
let viewer: Browser;
let businessA: string;
let keyId: string;
let otherKeyId: string;

const keyOf = async (who: Browser) => {
  const res = await consoleCall(gw.app, who, "GET", "/console/v1/keys");
  const { data } = (await res.json()) as { data: ApiKeyDto[] };
  return data.find((k) => k.id === keyId);
};
const setUrls = (who: Browser, id: string, body: unknown) =>
  consoleCall(gw.app, who, "PATCH", `/console/v1/keys/${id}`, body);
const sendTest = (who: Browser, id: string, type = "RAMP") =>
  consoleCall(gw.app, who, "POST", `/console/v1/keys/${id}/webhook-test?type=${type}`);
const auditOf = async (action: string) => {
  const res = await consoleCall(gw.app, ops, "GET", `/console/v1/audit?action=${action}`);
  return ((await res.json()) as { data: AuditEntryDto[] }).data;
};

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_hook_urls", realDispatcher: true });
  dispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(gw.envFor("webhook-dispatcher")));
  mongo = await MongoClient.connect(inject("mongoUrl"));
  receiver = await startReceiver();
  ({ url, received } = receiver);
  businessA = (await gw.keys.createBusiness("A")).id;
  const businessB = (await gw.keys.createBusiness("B")).id;
  keyId = (await gw.keys.issueKey(businessA, "main")).apiKeyId;
  otherKeyId = (await gw.keys.issueKey(businessB, "theirs")).apiKeyId;
  const people = await signedInPeople(gw.app, businessA, PASSWORD, ["owner", "developer", "viewer"]);
  ops = people.ops;
  ({ owner, developer, viewer } = people.members as Record<"owner" | "developer" | "viewer", Browser>);
});
afterAll(async () => {
  await dispatcher?.stop();
  await gw?.stop();
  await mongo?.close();
  await receiver?.close();
});

describe("webhook URLs and test sends from the console", () => {
  it("an owner sets a key's URL and sends a test: the receiver gets a delivery signed with the key's secret", async () => {
    const saved = await setUrls(owner, keyId, { rampWebhookURL: url });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({ id: keyId, rampWebhookURL: url, paymentWebhookURL: null });
    expect((await keyOf(viewer))?.rampWebhookURL).toBe(url);

    const res = await sendTest(owner, keyId);
    expect(res.status).toBe(200);
    const result = (await res.json()) as WebhookTestResultDto;
    expect(result).toMatchObject({ delivered: true, type: "RAMP", url, statusCode: 204 });
    expect(received).toHaveLength(1);
    const reveal = `/console/v1/keys/${keyId}/webhook-secret/reveal`;
    const { webhookSecret } = (await (
      await consoleCall(gw.app, owner, "POST", reveal, { password: PASSWORD })
    ).json()) as { webhookSecret: string };
    const delivery = received[0] as { headers: IncomingHttpHeaders; body: string };
    expect(() =>
      verifyWebhook({ rawBody: delivery.body, headers: delivery.headers, secret: webhookSecret }),
    ).not.toThrow();

    // A developer may test (it changes nothing); only owners change URLs.
    expect((await sendTest(developer, keyId)).status).toBe(200);
    expect(received).toHaveLength(2);
    const [update] = await auditOf("consoleKeyWebhookUpdate");
    expect(update).toMatchObject({
      target: `api-key:${keyId}`,
      before: { rampWebhookURL: null, paymentWebhookURL: null },
      after: { rampWebhookURL: url, paymentWebhookURL: null },
    });
    expect(await auditOf("consoleKeyWebhookTest")).toHaveLength(2);
  });

  it("a bad URL is a 400 in the error shape and changes nothing; a test with no URL says so", async () => {
    for (const body of [{ rampWebhookURL: "not a url" }, { rampWebhookURL: "ftp://example.com/x" }, {}]) {
      const res = await setUrls(owner, keyId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toMatchObject({ statusCode: 400, error: "Bad Request" });
    }
    expect((await keyOf(owner))?.rampWebhookURL).toBe(url);
    const noPaymentUrl = await sendTest(owner, keyId, "PAYMENT");
    expect(noPaymentUrl.status).toBe(400);
    expect(((await noPaymentUrl.json()) as { message: string }).message).toBe(
      "No paymentWebhookURL configured for this API key",
    );
  });

  it("a viewer changes nothing, a developer sets no URL, a missing CSRF header is refused, another business's key is 404", async () => {
    expect((await setUrls(viewer, keyId, { rampWebhookURL: "https://example.com/v" })).status).toBe(403);
    expect((await sendTest(viewer, keyId)).status).toBe(403);
    expect((await setUrls(developer, keyId, { rampWebhookURL: "https://example.com/d" })).status).toBe(403);
    const noCsrf = await consoleCall(
      gw.app,
      owner,
      "PATCH",
      `/console/v1/keys/${keyId}`,
      { rampWebhookURL: "https://example.com/c" },
      { csrf: null },
    );
    expect(noCsrf.status).toBe(403);
    expect((await setUrls(owner, otherKeyId, { rampWebhookURL: "https://example.com/o" })).status).toBe(404);
    expect((await sendTest(owner, otherKeyId)).status).toBe(404);
    expect((await keyOf(owner))?.rampWebhookURL).toBe(url);
    // An operator may set any business's key.
    expect((await setUrls(ops, otherKeyId, { paymentWebhookURL: "https://example.com/p" })).status).toBe(200);
  });

  it("saving the URL again resumes a paused endpoint, as the public route does", async () => {
    const health = mongo.db(`${gw.db.databaseName}_webhook-dispatcher`).collection("endpoint_health");
    const _id = endpointKey(url);
    // What the dispatcher records after WEBHOOK_DISABLE_AFTER_HOURS of failures.
    await health.insertOne({
      _id: _id as never,
      url,
      apiKeyId: keyId,
      failingSince: new Date(Date.now() - 80 * 3_600_000),
      paused: true,
      exceptionKey: `webhook-endpoint-failing:${_id}`,
      outbox: [],
    });
    expect((await setUrls(owner, keyId, { rampWebhookURL: url })).status).toBe(200);
    expect(await health.findOne({ _id: _id as never })).toMatchObject({ paused: false, failingSince: null });
  });
});
