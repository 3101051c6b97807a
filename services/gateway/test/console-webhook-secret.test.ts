import type { IncomingHttpHeaders } from "node:http";
import { verifyWebhook } from "@ramp/sdk";
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from "@ramp/webhook-dispatcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Browser,
  type ConsoleGateway,
  consoleCall,
  createOperator,
  signIn,
  startConsoleGateway,
  startReceiver,
} from "./console-support.ts";

const PASSWORD = "a long enough password";
let gw: ConsoleGateway;
let dispatcher: { stop(): Promise<void> };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let owner: Browser;
let apiKey: string;
let keyId: string;
let otherKeyId: string;

/** A signed sample to the key's URL through the real dispatcher; what the receiver got. */
async function deliverySample() {
  const before = receiver.received.length;
  const res = await gw.app.request("/pub/v2/webhook/test", {
    method: "POST",
    headers: { "x-api-key": apiKey },
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { delivered: boolean }).delivered).toBe(true);
  expect(receiver.received).toHaveLength(before + 1);
  return receiver.received[before] as { headers: IncomingHttpHeaders; body: string };
}

const verifies = (d: { headers: IncomingHttpHeaders; body: string }, secret: string) => {
  try {
    verifyWebhook({ rawBody: d.body, headers: d.headers, secret });
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_secrets", realDispatcher: true });
  dispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(gw.envFor("webhook-dispatcher")));
  receiver = await startReceiver();
  const businessA = (await gw.keys.createBusiness("A")).id;
  const businessB = (await gw.keys.createBusiness("B")).id;
  ({ apiKey, apiKeyId: keyId } = await gw.keys.issueKey(businessA, "main"));
  otherKeyId = (await gw.keys.issueKey(businessB, "theirs")).apiKeyId;
  await createOperator(gw.app, "ops@ops.example", PASSWORD, "operator");
  const ops = (await signIn(gw.app, "ops@ops.example", PASSWORD)).browser;
  await consoleCall(gw.app, ops, "POST", "/console/v1/members", {
    email: "owner@a.example",
    password: PASSWORD,
    role: "owner",
    businessId: businessA,
  });
  owner = (await signIn(gw.app, "owner@a.example", PASSWORD)).browser;
  const url = receiver.url;
  const saved = await gw.app.request("/pub/v2/webhook", {
    method: "PATCH",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ rampWebhookURL: url }),
  });
  expect(saved.status).toBe(200);
});
afterAll(async () => {
  await dispatcher?.stop();
  await gw?.stop();
  await receiver?.close();
});

describe("webhook secret reveal and rotation", () => {
  let oldSecret: string;

  it("reveals the secret only after the password again", async () => {
    const path = `/console/v1/keys/${keyId}/webhook-secret/reveal`;
    const wrong = await consoleCall(gw.app, owner, "POST", path, { password: "not my password" });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { message: string }).message).toBe("Wrong password");
    const right = await consoleCall(gw.app, owner, "POST", path, { password: PASSWORD });
    expect(right.status).toBe(200);
    oldSecret = ((await right.json()) as { webhookSecret: string }).webhookSecret;
    expect(oldSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(verifies(await deliverySample(), oldSecret)).toBe(true);
  });

  it("during the overlap each delivery carries both signatures, new first: a receiver with either secret verifies", async () => {
    const res = await consoleCall(gw.app, owner, "POST", `/console/v1/keys/${keyId}/webhook-secret/rotate`, {
      overlapHours: 24,
    });
    expect(res.status).toBe(200);
    const { webhookSecret: newSecret, previousValidUntil } = (await res.json()) as {
      webhookSecret: string;
      previousValidUntil: string;
    };
    expect(newSecret).not.toBe(oldSecret);
    const hours = (Date.parse(previousValidUntil) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const delivery = await deliverySample();
    expect(String(delivery.headers["x-svc-signature"]).split(",")).toHaveLength(2);
    const receiverWithOld = verifies(delivery, oldSecret);
    const receiverWithNew = verifies(delivery, newSecret);
    expect([receiverWithOld, receiverWithNew]).toEqual([true, true]);
    // New first: a receiver reading only the first value already has the new one.
    expect(
      verifies(
        {
          ...delivery,
          headers: {
            ...delivery.headers,
            "x-svc-signature": String(delivery.headers["x-svc-signature"]).split(",")[0],
          },
        },
        newSecret,
      ),
    ).toBe(true);

    // Rotating with overlapHours 0 switches at once: one signature, the previous secret no longer verifies.
    const atOnce = await consoleCall(
      gw.app,
      owner,
      "POST",
      `/console/v1/keys/${keyId}/webhook-secret/rotate`,
      { overlapHours: 0 },
    );
    const third = (await atOnce.json()) as { webhookSecret: string; previousValidUntil: string | null };
    expect(third.previousValidUntil).toBeNull();
    const after = await deliverySample();
    expect(String(after.headers["x-svc-signature"]).split(",")).toHaveLength(1);
    expect(verifies(after, third.webhookSecret)).toBe(true);
    expect(verifies(after, newSecret)).toBe(false);
  });

  it("rejects an overlap beyond 72 hours and another business's key", async () => {
    const path = `/console/v1/keys/${keyId}/webhook-secret/rotate`;
    expect((await consoleCall(gw.app, owner, "POST", path, { overlapHours: 73 })).status).toBe(400);
    const theirs = `/console/v1/keys/${otherKeyId}/webhook-secret`;
    expect((await consoleCall(gw.app, owner, "POST", `${theirs}/rotate`, { overlapHours: 1 })).status).toBe(
      404,
    );
    expect(
      (await consoleCall(gw.app, owner, "POST", `${theirs}/reveal`, { password: PASSWORD })).status,
    ).toBe(404);
  });
});

describe("the delivery log in the console", () => {
  it("lists the business's attempts newest first, filters by outcome, and redelivers one (audited)", async () => {
    const page = await consoleCall(gw.app, owner, "GET", "/console/v1/webhooks/deliveries?limit=2");
    expect(page.status).toBe(200);
    const first = (await page.json()) as {
      data: { id: string; deliveryId: string; keyId: string; delivered: boolean }[];
      nextCursor: string;
    };
    expect(first.data).toHaveLength(2);
    expect(first.data.every((d) => d.keyId === keyId && d.delivered)).toBe(true);
    expect(first.nextCursor).not.toBe("");
    const next = `/console/v1/webhooks/deliveries?limit=100&cursor=${first.nextCursor}`;
    const rest = (await (await consoleCall(gw.app, owner, "GET", next)).json()) as { data: { id: string }[] };
    expect(rest.data.length).toBeGreaterThan(0);
    expect(rest.data.map((d) => d.id)).not.toContain(first.data[1]?.id);
    const failedPath = "/console/v1/webhooks/deliveries?status=failed";
    const failed = (await (await consoleCall(gw.app, owner, "GET", failedPath)).json()) as {
      data: unknown[];
    };
    expect(failed.data).toEqual([]);

    const target = first.data[0]?.deliveryId ?? "";
    const before = receiver.received.length;
    const again = await consoleCall(
      gw.app,
      owner,
      "POST",
      `/console/v1/webhooks/deliveries/${target}/redeliver`,
    );
    expect(again.status).toBe(202);
    expect(((await again.json()) as { delivered: boolean }).delivered).toBe(true);
    expect(receiver.received).toHaveLength(before + 1);
    const audit = await consoleCall(gw.app, owner, "GET", "/console/v1/audit?limit=1");
    const [entry] = ((await audit.json()) as { data: { action: string; target: string }[] }).data;
    expect(entry).toMatchObject({ action: "consoleDeliveryRedeliver", target: `delivery:${target}` });
  });

  it("another business's key or delivery is 404 to a member", async () => {
    const theirs = `/console/v1/webhooks/deliveries?keyId=${otherKeyId}`;
    expect((await consoleCall(gw.app, owner, "GET", theirs)).status).toBe(404);
    const unknown = `/console/v1/webhooks/deliveries/${"d".repeat(24)}/redeliver`;
    expect((await consoleCall(gw.app, owner, "POST", unknown)).status).toBe(404);
  });
});
