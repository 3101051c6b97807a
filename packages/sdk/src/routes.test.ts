import { mapPathParams, type RouteDef, Routes } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { createRampClient } from "./client.ts";
import { createConsoleClient } from "./console.ts";

/**
 * The SDK writes its paths itself (importing the route table at run time would bring the contracts'
 * chain libraries into every integrator's bundle), so this checks them against the table: every
 * request it sends is a route of the table, with a key exactly where the route takes one, and every
 * public and sandbox route has an SDK method.
 */
describe("the SDK's requests", () => {
  it("are the table's public and sandbox routes, every one of them", async () => {
    const sent: { method: string; path: string; keyed: boolean }[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = new Headers(init?.headers);
      sent.push({ method: init?.method ?? "GET", path: url.pathname, keyed: headers.has("x-api-key") });
      return new Response(JSON.stringify({ data: [], nextCursor: "" }), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    };
    const ramp = createRampClient({ apiKey: "key_test", baseUrl: "http://127.0.0.1:1", fetch });
    const id = "65a1b2c3d4e5f60718293a4b";
    await ramp.rates.get({ currency: "NGN" });
    await ramp.banks.list();
    await ramp.banks.listPublic();
    await ramp.bankAccounts.lookup({ accountNumber: "0123456789" });
    await ramp.bankAccounts.register({ bankCode: "000013", accountNumber: "0123456789" });
    await ramp.onramp.create({} as never);
    await ramp.offramp.create({} as never);
    await ramp.transactions.get(id);
    await ramp.transactions.list();
    for await (const _ of ramp.transactions.iterate()) break;
    await ramp.transactions.export();
    await ramp.quotes.create({} as never);
    await ramp.payments.create({} as never);
    await ramp.payments.get(id);
    await ramp.webhooks.update({});
    await ramp.webhooks.test();
    await ramp.webhooks.deliveries();
    await ramp.webhooks.redeliver("delivery-1");
    await ramp.sandbox.onrampFiatDeposit(id);
    await ramp.sandbox.offrampTokenDeposit(id);
    await ramp.sandbox.paymentDeposit(id);

    const table = Object.entries(Routes as Record<string, RouteDef>);
    const matched = new Set<string>();
    for (const req of sent) {
      const hit = table.find(
        ([, route]) =>
          route.method.toUpperCase() === req.method &&
          new RegExp(`^${mapPathParams(route.path, () => "[^/]+")}$`).test(req.path),
      );
      expect(hit, `${req.method} ${req.path}`).toBeDefined();
      const [name, route] = hit as [string, RouteDef];
      expect(req.keyed, name).toBe(route.auth !== "none");
      matched.add(name);
    }
    const expected = table.filter(([, r]) => r.tag === "Public" || r.tag === "Sandbox").map(([name]) => name);
    expect([...matched].sort()).toEqual(expected.sort());
  });
});

describe("the console client's requests", () => {
  it("are the table's console routes, every one of them, with the CSRF token on every write", async () => {
    const sent: { method: string; path: string; csrf: string | null; cookie: string | null }[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = new Headers(init?.headers);
      sent.push({
        method: init?.method ?? "GET",
        path: url.pathname,
        csrf: headers.get("x-csrf-token"),
        cookie: headers.get("cookie"),
      });
      return new Response(JSON.stringify({ csrfToken: "tok", data: [], nextCursor: "" }), {
        status: 200,
        headers: { "content-type": "application/json", "set-cookie": "ramp_session=abc; Path=/; HttpOnly" },
      });
    };
    const c = createConsoleClient({ baseUrl: "http://127.0.0.1:1", fetch });
    const id = "65a1b2c3d4e5f60718293a4b";
    await c.signIn({ email: "a@b.co", password: "x" });
    await c.me();
    await c.totp.enrol();
    await c.totp.confirm("123456");
    await c.operators.list();
    await c.operators.create({ email: "a@b.co", password: "x".repeat(12), role: "viewer" });
    await c.operators.remove(id);
    await c.members.list();
    await c.members.create({ email: "a@b.co", password: "x".repeat(12), role: "viewer" });
    await c.members.remove(id);
    await c.audit.list();
    await c.audit.export();
    await c.keys.list();
    await c.keys.create({ name: "k" });
    await c.keys.revoke(id);
    await c.keys.revealSecret(id, "pw");
    await c.keys.rotateSecret(id, 1);
    await c.keys.setWebhooks(id, { rampWebhookURL: "https://example.com/hook" });
    await c.keys.testWebhook(id);
    await c.bankAccounts.list();
    await c.bankAccounts.create({ bankCode: "000013", accountNumber: "0123456789" });
    await c.payments.list();
    await c.webhooks.deliveries();
    await c.webhooks.redeliver(id);
    await c.transactions.list({ q: id });
    await c.transactions.get(id);
    await c.transactions.export();
    await c.overview();
    await c.exceptions.list({ kind: "stuck" });
    await c.exceptions.resolve(id, "done");
    await c.refunds.fund(`fiat:${id}`, { bankCode: "000013", accountNumber: "0123456789" });
    await c.refunds.order(id, { toAddress: "0xabc" });
    await c.reconciliation({ date: "2026-11-26" });
    await c.treasury();
    await c.reindex("BASE", { from: 1, to: 2 });
    await c.businesses.list();
    await c.businesses.create({ name: "b" });
    await c.businesses.update(id, { suspended: true });
    await c.rates.get("NGN");
    await c.rates.set("NGN", { onRamp: 1, offRamp: 1 });
    await c.rates.remove("NGN");
    await c.rates.history();
    await c.signOut();

    const table = Object.entries(Routes as Record<string, RouteDef>);
    const matched = new Set<string>();
    for (const req of sent) {
      const hit = table.find(
        ([, route]) =>
          route.method.toUpperCase() === req.method &&
          new RegExp(`^${mapPathParams(route.path, () => "[^/]+")}$`).test(req.path) &&
          // `/rates/history` is also a `/rates/{currency}`: the literal route wins, as on the server.
          !(route.path === "/console/v1/rates/{currency}" && req.path.endsWith("/history")),
      );
      expect(hit, `${req.method} ${req.path}`).toBeDefined();
      const [name] = hit as [string, RouteDef];
      matched.add(name);
      if (name !== "consoleSignIn") expect(req.cookie, name).toBe("ramp_session=abc");
      if (req.method !== "GET" && name !== "consoleSignIn") expect(req.csrf, name).toBe("tok");
    }
    const expected = table.filter(([, r]) => r.tag === "Console").map(([name]) => name);
    expect([...matched].sort()).toEqual(expected.sort());
  });
});
