// The web console in a real Chromium against a whole stack: sign-in, session expiry, keys, an
// operator's business suspension, a viewer's read-only view, phone width and keyboard use.
import { readFile } from "node:fs/promises";
import { Rpc } from "@ramp/contracts";
import { totpCode } from "@ramp/gateway";
import { callRpc } from "@ramp/runtime";
import { createConsoleClient } from "@ramp/sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { seedConsolePeople } from "../scripts/launcher/console-people.ts";
import {
  type ConsoleBrowser,
  type ConsolePage,
  openConsoleBrowser,
  overflowsSideways,
  PHONE,
  signIn,
} from "./support/console-browser.ts";
import { ADMIN_TOKEN, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";
import { receiver } from "./support/webhook-receiver.ts";

let stack: Stack;
let browser: ConsoleBrowser;
let acme: { id: string; apiKey: string; webhookSecret: string };
let other: { id: string; apiKey: string };
let owner: { email: string; password: string };
let acmeOrder: { id: string; address: string };
let otherOrder: { id: string; address: string };
let admin: { email: string; password: string };
const viewer = { email: "viewer@acme.test", password: "viewer-password-123" };
const opened: ConsolePage[] = [];
/** A call any working key may make (pricing answers it): 401 once revoked, 403 while suspended. */
const RATE = "/pub/v2/rate?currency=NGN";

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  acme = await stack.createBusiness("Acme Payments", 100);
  other = await stack.createBusiness("Other Ltd", 50);
  await stack.setRate("NGN", 1500, 1450);
  const order = async (apiKey: string, path: string, body: Record<string, unknown>) => {
    const res = await stack.client(apiKey).post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; address: string };
  };
  const onramp = { currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT };
  acmeOrder = await order(acme.apiKey, "/pub/v2/onramp", { ...onramp, amount: 5, userExternalId: "cust-7" });
  otherOrder = await order(other.apiKey, "/pub/v2/offramp", {
    accountNumber: "0123456789",
    bankCode: "000013",
    currency: "NGN",
    chain: "BASE",
    mint: BASE_USDC,
    amount: 6,
  });
  const people = await seedConsolePeople(stack.url, ADMIN_TOKEN, acme.id);
  admin = people.find((p) => p.role === "admin")!;
  owner = people.find((p) => p.role === "owner")!;
  const ops = createConsoleClient({ baseUrl: stack.url });
  await ops.signIn({ email: admin.email, password: admin.password });
  await ops.members.create({ ...viewer, role: "viewer", businessId: acme.id });
  await ops.signOut();
  browser = await openConsoleBrowser(stack.url);
});

afterEach(async () => {
  for (const p of opened.splice(0)) {
    // Every page of every test: no error thrown, no CSP violation, nothing fetched from elsewhere.
    expect(p.problems).toEqual([]);
    expect(p.foreign).toEqual([]);
    await p.context.close();
  }
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function open(viewport?: { width: number; height: number }) {
  const p = await browser.open(viewport);
  opened.push(p);
  return p;
}

describe("the web console", () => {
  it("is served with a strict Content-Security-Policy and the other security headers", async () => {
    const res = await fetch(`${stack.url}/console/keys`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style="/);
    // A missing file is a 404, not the page; the console API's paths and files outside the build are never served as pages.
    expect((await fetch(`${stack.url}/console/assets/missing.js`)).status).toBe(404);
    const api = await fetch(`${stack.url}/console/v1/nothing-here`);
    expect([api.status, api.headers.get("content-type")]).toEqual([404, expect.stringContaining("json")]);
    expect((await fetch(`${stack.url}/console/..%2F..%2Fpackage.json`)).status).toBe(404);
  });

  it("an owner signs in, creates a key shown once, and revokes it: the key is refused at once", async () => {
    const p = await open();
    await p.goto("/console/");
    await p.page.waitForURL(/\/console\/sign-in\?next=/);
    await p.shot("console-sign-in-1280");
    await signIn(p, owner.email, owner.password);
    await p.page.waitForURL(/\/console\/overview$/);
    await p.page.getByRole("link", { name: "API keys" }).click();

    await p.page.getByLabel("Name").fill("Checkout server");
    await p.page.getByRole("button", { name: "Create key" }).click();
    const apiKey = (await p.page.getByTestId("new-api-key").textContent()) ?? "";
    expect(apiKey.length).toBeGreaterThan(20);
    expect(p.page.getByRole("button", { name: "Copy key" })).toBeTruthy();
    expect((await stack.client(apiKey).get(RATE)).status).toBe(200);
    const row = p.page.getByRole("row", { name: /Checkout server/ });
    await row.getByText("Active").waitFor();
    await p.shot("console-keys-1280");

    await row.getByRole("button", { name: "Revoke" }).click();
    const dialog = p.page.getByRole("dialog");
    await dialog.getByText(apiKey.slice(0, 8)).waitFor();
    await dialog.getByRole("button", { name: "Revoke" }).click();
    await row.getByText(/^Revoked/).waitFor();
    expect((await stack.client(apiKey).get(RATE)).status).toBe(401);
  });

  it("an owner rotates a key's webhook secret with an overlap, and finds the rotation in the audit log", async () => {
    const p = await open();
    await p.goto("/console/webhooks");
    await signIn(p, owner.email, owner.password);
    await p.page.getByRole("button", { name: "Rotate secret" }).first().click();
    const dialog = p.page.getByRole("dialog");
    await dialog.getByLabel("Overlap in hours (0 to 72)").fill("24");
    await dialog.getByRole("button", { name: "Rotate" }).click();
    const shown = p.page.getByRole("status").filter({ hasText: "both signatures until" });
    await shown.waitFor();
    const secret = (await shown.locator("code").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(secret).not.toBe(acme.webhookSecret);

    await p.page.getByRole("link", { name: "Audit log" }).click();
    await p.page.getByLabel("Action (e.g. consoleKeyRevoke)").fill("consoleKeySecretRotate");
    const entries = p.page.getByRole("row", { name: /consoleKeySecretRotate/ });
    await expect.poll(() => entries.count()).toBe(1);
    await expect.poll(() => entries.first().textContent()).toContain('"overlapHours":24');
  });

  it("a session that ends sends the person to sign-in, then back to the page they wanted", async () => {
    const p = await open();
    await p.goto("/console/keys");
    await signIn(p, owner.email, owner.password);
    await p.page.waitForURL(/\/console\/keys$/);
    // The keys page's own reads answered first: one still on its way when the cookie goes would be
    // refused and send the person to sign-in from this page, before the click below.
    await p.page.waitForLoadState("networkidle");
    // The server no longer knows the session: what an idle timeout or a sign-out elsewhere looks like.
    await p.context.clearCookies();
    await p.page.getByRole("link", { name: "Webhooks" }).click();
    await p.page.getByText("Your session ended").waitFor();
    expect(p.page.url()).toContain("next=%2Fwebhooks");
    await signIn(p, owner.email, owner.password);
    await p.page.waitForURL(/\/console\/webhooks$/);
    await p.page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();

    await p.page.getByRole("button", { name: "Sign out" }).click();
    await p.page.getByRole("button", { name: "Sign in" }).waitFor();
    await p.goto("/console/team");
    await p.page.waitForURL(/\/console\/sign-in\?next=%2Fteam/);
  });

  it("a wrong password shows the API's message", async () => {
    const p = await open();
    await p.goto("/console/sign-in");
    await p.page.getByLabel("Email").fill(owner.email);
    await p.page.getByLabel("Password").fill("not-the-password-at-all");
    await p.page.getByRole("button", { name: "Sign in" }).click();
    await p.page.getByRole("alert").getByText("Invalid email or password").waitFor();
  });

  it("an operator suspends and restores a business, and reads both in the audit log", async () => {
    const p = await open();
    await p.goto("/console/");
    await signIn(p, admin.email, admin.password);
    await p.page.waitForURL(/\/console\/overview$/);
    await p.page.getByRole("link", { name: "Businesses" }).click();
    const row = p.page.getByRole("row", { name: /Other Ltd/ });
    await row.getByRole("button", { name: "Suspend" }).click();
    await p.page.getByRole("dialog").getByRole("button", { name: "Suspend" }).click();
    await row.getByText("Suspended").waitFor();
    expect((await stack.client(other.apiKey).get(RATE)).status).toBe(403);
    await p.shot("console-businesses-1280");

    await row.getByRole("button", { name: "Restore" }).click();
    await p.page.getByRole("dialog").getByRole("button", { name: "Restore" }).click();
    await row.getByText("Active").waitFor();
    expect((await stack.client(other.apiKey).get(RATE)).status).toBe(200);

    await p.page.getByRole("link", { name: "Audit log" }).click();
    await p.page.getByLabel("Action (e.g. consoleKeyRevoke)").fill("consoleBusinessUpdate");
    const entries = p.page.getByRole("row", { name: new RegExp(`consoleBusinessUpdate.*${other.id}`) });
    await expect.poll(() => entries.count()).toBe(2);
    await expect.poll(() => entries.first().textContent()).toContain('"suspended":false');
    await p.shot("console-audit-1280");
  });

  it("a viewer sees no write buttons, and a write crafted in the page is refused", async () => {
    const p = await open();
    await p.goto("/console/keys");
    await signIn(p, viewer.email, viewer.password);
    await p.page.getByRole("heading", { name: "API keys" }).waitFor();
    await p.page.getByRole("row", { name: /Checkout server/ }).waitFor();
    expect(await p.page.getByRole("button", { name: /Create key|Revoke/ }).count()).toBe(0);
    const status = await p.page.evaluate(async () => {
      const g = globalThis as any;
      const me = await (await g.fetch("/console/v1/me")).json();
      const res = await g.fetch("/console/v1/keys", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": me.csrfToken },
        body: JSON.stringify({ name: "sneaky" }),
      });
      return res.status;
    });
    expect(status).toBe(403);
  });

  it("at 390 px wide no page scrolls sideways", async () => {
    const p = await open(PHONE);
    await p.goto("/console/");
    await signIn(p, owner.email, owner.password);
    for (const page of [
      "overview",
      "transactions",
      `transactions/${acmeOrder.id}`,
      "keys",
      "webhooks",
      "bank-accounts",
      "payments",
      "team",
      "audit",
      "security",
    ]) {
      await p.goto(`/console/${page}`);
      await p.page.locator("main h1").waitFor();
      await p.page.waitForLoadState("networkidle");
      expect(await overflowsSideways(p.page), page).toBe("");
      if (page === "keys") await p.shot("console-keys-390");
      if (page === "webhooks") await p.shot("console-webhooks-390");
    }
    const ops = await open(PHONE);
    await ops.goto("/console/");
    await signIn(ops, admin.email, admin.password);
    for (const page of [
      "overview",
      "transactions",
      "exceptions",
      "businesses",
      "rates",
      "treasury",
      "reconciliation",
      "operators",
      "audit",
      "security",
    ]) {
      await ops.goto(`/console/${page}`);
      await ops.page.locator("main h1").waitFor();
      await ops.page.waitForLoadState("networkidle");
      expect(await overflowsSideways(ops.page), page).toBe("");
      if (page === "businesses") await ops.shot("console-businesses-390");
      if (page === "overview") await ops.shot("console-overview-operator-390");
    }
  });

  it("an operator refunds a surplus deposit from the exceptions queue, after a confirmation naming amount and address", async () => {
    const res = await stack.client(other.apiKey).post("/pub/v2/offramp", {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      chain: "BASE",
      mint: BASE_USDC,
      amount: 3,
    });
    const paid = res.body as { id: string; address: string };
    // Paid twice: the second deposit is surplus, money an operator must give back.
    const nc = await stack.connectAs("orders");
    try {
      for (let i = 0; i < 2; i++)
        await callRpc(nc, Rpc.sandboxChainDeposit, {
          chain: "BASE",
          address: paid.address,
          mint: BASE_USDC,
          amount: "3",
        });
    } finally {
      await nc.close();
    }
    const p = await open();
    await p.goto("/console/exceptions");
    await signIn(p, admin.email, admin.password);
    const row = p.page.getByRole("row", { name: new RegExp(`refundable-funds.*${paid.id}`) });
    const rowsNow = async () => {
      await p.page.reload();
      await p.page.locator("main h1").waitFor();
      await p.page.waitForLoadState("networkidle");
      return row.count();
    };
    await expect.poll(rowsNow, { timeout: 30_000 }).toBe(1);
    await p.shot("console-exceptions-1280");
    await row.getByRole("button", { name: "Refund" }).click();
    const dialog = p.page.getByRole("dialog");
    await dialog.getByLabel("Address on BASE").fill(EVM_RECIPIENT);
    await expect
      .poll(() => dialog.getByRole("status").textContent())
      .toMatch(new RegExp(`Sends 3(\\.0+)? \\S+ on BASE to ${EVM_RECIPIENT}`, "i"));
    await dialog.getByRole("button", { name: /^Send / }).click();
    await p.page.getByText(/Refund of 3(\.0+)? .*: (pending|sent)/).waitFor();
    // Sent once, its exception closes; the refund is in the audit log.
    await expect.poll(rowsNow, { timeout: 30_000 }).toBe(0);
    await p.page.getByRole("link", { name: "Audit log" }).click();
    await p.page.getByLabel("Action (e.g. consoleKeyRevoke)").fill("consoleFundRefund");
    await expect.poll(() => p.page.getByRole("row", { name: /consoleFundRefund/ }).count()).toBe(1);
  });

  it("an owner sees its orders and not another business's, opens one's timeline, and exports them", async () => {
    const p = await open();
    await p.goto("/console/transactions");
    await signIn(p, owner.email, owner.password);
    await p.page.waitForURL(/\/console\/transactions$/);
    const link = p.page.getByRole("link", { name: acmeOrder.id });
    await link.waitFor();
    expect(await p.page.getByText(otherOrder.id).count()).toBe(0);
    await p.shot("console-transactions-1280");
    await link.click();
    await p.page.waitForURL(new RegExp(`/console/transactions/${acmeOrder.id}$`));
    await p.page.getByRole("heading", { name: "Timeline" }).waitFor();
    await p.page.locator(".timeline li").getByText("status", { exact: true }).first().waitFor();
    await p.page.getByText("cust-7").waitFor();
    await p.shot("console-transaction-1280");

    await p.page.getByRole("link", { name: "Back to transactions" }).click();
    const saved = p.page.waitForEvent("download");
    await p.page.getByRole("button", { name: "Export CSV" }).click();
    const csv = await readFile((await (await saved).path()) ?? "", "utf8");
    expect(csv).toContain(acmeOrder.id);
    expect(csv).not.toContain(otherOrder.id);
    await p.page.getByText("Saved transactions.csv").waitFor();

    await p.page.getByRole("link", { name: "Overview" }).click();
    await p.page.getByText("Orders per day by status").waitFor();
    await p.shot("console-overview-1280");
  });

  it("an operator finds another business's order by its deposit address", async () => {
    const p = await open();
    await p.goto("/console/transactions");
    await signIn(p, admin.email, admin.password);
    await p.page.getByLabel(/^Search/).fill(otherOrder.address);
    await p.page.getByRole("link", { name: otherOrder.id }).waitFor();
    await expect.poll(() => p.page.locator("tbody tr").count()).toBe(1);
  });

  it("works from the keyboard, with a visible focus ring", async () => {
    const p = await open();
    await p.goto("/console/sign-in");
    await p.page.getByLabel("Email").waitFor();
    const focused = () =>
      p.page.evaluate(() => {
        const el = (globalThis as any).document.activeElement;
        const style = (globalThis as any).getComputedStyle(el);
        return { label: el.labels?.[0]?.textContent ?? el.textContent, outline: style.outlineStyle };
      });
    await p.page.keyboard.press("Tab");
    expect(await focused()).toEqual({ label: "Email", outline: "solid" });
    await p.page.keyboard.type(owner.email);
    await p.page.keyboard.press("Tab");
    expect((await focused()).label).toBe("Password");
    await p.page.keyboard.type(owner.password);
    await p.page.keyboard.press("Tab");
    expect(await focused()).toEqual({ label: "Sign in", outline: "solid" });
    await p.page.keyboard.press("Enter");
    await p.page.waitForURL(/\/console\/overview$/);
    // Every menu entry is a link reached with Tab.
    await p.page.getByRole("link", { name: "Team" }).focus();
    await p.page.keyboard.press("Enter");
    await p.page.waitForURL(/\/console\/team$/);
  });

  it("an owner sets a key's webhook URL and sends a test: the receiver gets a delivery signed with the key's secret", async () => {
    const hooks = await receiver();
    hooks.setSecret(acme.webhookSecret);
    try {
      const p = await open();
      await p.goto("/console/webhooks");
      await signIn(p, owner.email, owner.password);
      const card = p.page
        .locator("section.card")
        .filter({ has: p.page.getByRole("button", { name: "Save URLs" }) })
        .first();
      await card.getByLabel("Order webhook URL").fill(`${hooks.url}/orders`);
      await card.getByRole("button", { name: "Save URLs" }).click();
      await card.getByRole("status").getByText("Saved.").waitFor();
      await card.getByRole("button", { name: "Send test", exact: true }).click();
      await card
        .getByRole("status")
        .getByText(/Test RAMP delivery to .*\/orders: delivered \(200/)
        .waitFor();
      expect(hooks.got).toHaveLength(1);
      // Signed with the key's secret (during a rotation's overlap, with the previous one as well).
      expect(hooks.got[0]?.verified).toBe(true);
      await p.shot("console-webhooks-1280");

      await p.page.getByRole("link", { name: "Audit log" }).click();
      await p.page.getByLabel("Action (e.g. consoleKeyRevoke)").fill("consoleKeyWebhookUpdate");
      await expect.poll(() => p.page.getByRole("row", { name: /consoleKeyWebhookUpdate/ }).count()).toBe(1);
    } finally {
      await hooks.close();
    }
  });

  it("an owner adds a bank account and sees it listed with its deposit address", async () => {
    const p = await open();
    await p.goto("/console/bank-accounts");
    await signIn(p, owner.email, owner.password);
    await p.page.getByText("No bank accounts yet.").waitFor();
    await p.page.getByLabel("Bank code").fill("000013");
    await p.page.getByLabel("Account number").fill("0123456789");
    await p.page.getByRole("button", { name: "Add account" }).click();
    await p.page
      .getByRole("status")
      .getByText(/^Added .*0123456789: deposit address/)
      .waitFor();
    const row = p.page.getByRole("row", { name: /0123456789/ });
    await row.waitFor();
    expect(await p.page.locator("tbody tr").count()).toBe(1);
    await p.shot("console-bank-accounts-1280");
    // A bank the catalogue does not have: banking's message, and nothing added.
    await p.page.getByLabel("Bank code").fill("999999");
    await p.page.getByLabel("Account number").fill("0123456780");
    await p.page.getByRole("button", { name: "Add account" }).click();
    await p.page.getByRole("alert").getByText("Bank with code 999999 not found").waitFor();
    expect(await p.page.locator("tbody tr").count()).toBe(1);
  });

  it("an owner sees its business's payments with their status, and where to pay in the detail", async () => {
    const res = await stack.client(acme.apiKey).post("/pub/v2/payment", {
      chain: "BASE",
      mint: BASE_USDC,
      amount: 100,
      reference: "invoice-42",
    });
    expect(res.status).toBe(201);
    const payment = res.body as { id: string; token: { address: string } };
    const p = await open();
    await p.goto("/console/payments");
    await signIn(p, owner.email, owner.password);
    const row = p.page.getByRole("row", { name: /AWAITING/ });
    await row.waitFor();
    await row.getByText("Details").click();
    await row.getByText("invoice-42").waitFor();
    await row.getByText(payment.token.address).waitFor();
    await row.getByText(payment.id).waitFor();
    await p.shot("console-payments-1280");
  });

  it("a member enrols TOTP on the Security page, then signing in asks for a code", async () => {
    const dev = { email: "dev@acme.test", password: "developer-password-1" };
    const ops = createConsoleClient({ baseUrl: stack.url });
    await ops.signIn({ email: admin.email, password: admin.password });
    await ops.members.create({ ...dev, role: "developer", businessId: acme.id });
    await ops.signOut();

    const p = await open();
    await p.goto("/console/security");
    await signIn(p, dev.email, dev.password);
    await p.page.getByRole("button", { name: "Start enrolment" }).click();
    const secret = (await p.page.getByTestId("totp-secret").textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await p.page.getByText(/^otpauth:\/\/totp\//).waitFor();
    await p.shot("console-security-1280");
    await p.page.getByLabel("Code from your authenticator (6 digits)").fill("000000");
    await p.page.getByRole("button", { name: "Confirm" }).click();
    await p.page.getByRole("alert").waitFor();
    await p.page.getByLabel("Code from your authenticator (6 digits)").fill(totpCode(secret, Date.now()));
    await p.page.getByRole("button", { name: "Confirm" }).click();
    await p.page.getByText(/^On: signing in asks for a 6-digit code/).waitFor();

    await p.page.getByRole("button", { name: "Sign out" }).click();
    await p.page.getByLabel("Email").fill(dev.email);
    await p.page.getByLabel("Password").fill(dev.password);
    await p.page.getByRole("button", { name: "Sign in" }).click();
    const code = p.page.getByLabel("Authenticator code (6 digits)");
    await code.waitFor();
    await code.fill(totpCode(secret, Date.now()));
    await p.page.getByRole("button", { name: "Sign in" }).click();
    await p.page.getByRole("button", { name: "Sign out" }).waitFor();
  });

  it("an operator's overview shows open exceptions by kind and treasury health, each linking to its page", async () => {
    const p = await open();
    await p.goto("/console/overview");
    await signIn(p, admin.email, admin.password);
    const exceptions = p.page.getByRole("region", { name: "Open exceptions by kind" });
    await exceptions.getByText("refundable-funds").waitFor();
    await expect.poll(() => exceptions.getByText("…").count()).toBe(0);
    // Each kind's count is what the queue holds open.
    const ops = createConsoleClient({ baseUrl: stack.url });
    await ops.signIn({ email: admin.email, password: admin.password });
    for (const kind of ["refundable-funds", "payout-failed", "stuck"] as const) {
      const open = await ops.exceptions.list({ kind, status: "open", limit: 100 });
      const shown = exceptions.locator("dt", { hasText: kind }).locator("xpath=following-sibling::dd[1]");
      expect(await shown.textContent(), kind).toBe(`${open.data.length}${open.nextCursor ? "+" : ""}`);
    }
    await p.page
      .getByRole("region", { name: "Treasury health" })
      .getByText(/^(No chain has a treasury here|OK: |Below minimum: )/)
      .first()
      .waitFor();
    await p.shot("console-overview-operator-1280");
    await exceptions.getByRole("link", { name: "Open the exceptions queue" }).click();
    await p.page.waitForURL(/\/console\/exceptions$/);
    await p.page.getByRole("link", { name: "Overview" }).click();
    await p.page.getByRole("link", { name: "Open the treasury" }).click();
    await p.page.waitForURL(/\/console\/treasury$/);
  });
});

describe("the console API's bank account and payment lists", () => {
  it("page a business's own, newest first, without repeats; registering again lists one account", async () => {
    const key = stack.client(other.apiKey);
    const made: { payments: string[]; accounts: string[] } = { payments: [], accounts: [] };
    for (let i = 1; i <= 3; i++) {
      const paid = await key.post("/pub/v2/payment", { chain: "BASE", mint: BASE_USDC, amount: 10 + i });
      expect(paid.status).toBe(201);
      made.payments.push(paid.body.id);
      const account = { bankCode: "000013", accountNumber: `01000000${i}0` };
      const added = await key.post("/pub/v2/bank-account", account);
      expect(added.status).toBe(201);
      made.accounts.push(added.body.id);
    }
    // Idempotent per bank and number: the same account again is the same record.
    expect(
      (await key.post("/pub/v2/bank-account", { bankCode: "000013", accountNumber: "0100000010" })).body.id,
    ).toBe(made.accounts[0]);
    const ops = createConsoleClient({ baseUrl: stack.url });
    await ops.signIn({ email: admin.email, password: admin.password });
    type Lister = (q: { businessId: string; limit: number; cursor?: string }) => Promise<{
      data: { id: string }[];
      nextCursor: string;
    }>;
    const all = async (list: Lister) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await list({ businessId: other.id, limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.data.length).toBeLessThanOrEqual(2);
        ids.push(...page.data.map((x) => x.id));
        cursor = page.nextCursor || undefined;
      } while (cursor);
      return ids;
    };
    const payments = await all(ops.payments.list);
    const accounts = await all(ops.bankAccounts.list);
    for (const [ids, mine] of [
      [payments, made.payments],
      [accounts, made.accounts],
    ] as const) {
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => mine.includes(id))).toEqual([...mine].reverse());
    }
    const acmePayments = await ops.payments.list({ businessId: acme.id, limit: 100 });
    expect(acmePayments.data.some((x) => payments.includes(x.id))).toBe(false);
  });
});

describe("the web console outside the sandbox", () => {
  let prod: Stack;
  let prodBrowser: ConsoleBrowser;
  const boss = { email: "boss@ops.test", password: "a long boss password" };
  beforeAll(async () => {
    // A gateway alone is enough: people, sessions and TOTP are its own.
    prod = await startStack({
      services: ["gateway"],
      serviceEnv: { gateway: { RAMP_SANDBOX: "false", CONSOLE_SECRET_KEY: "5e".repeat(32) } },
    });
    expect((await prod.admin("POST", "/operators", { ...boss, role: "admin" })).status).toBe(201);
    prodBrowser = await openConsoleBrowser(prod.url);
  });
  afterAll(async () => {
    await prodBrowser?.close();
    await prod?.close();
  });

  it("an operator without TOTP is led to the Security page, the only one it can use, until it enrols", async () => {
    const p = await prodBrowser.open();
    try {
      await p.goto("/console/");
      await signIn(p, boss.email, boss.password);
      await p.page.waitForURL(/\/console\/security$/);
      await p.page.getByText(/enrol one here before anything else/).waitFor();
      const menu = p.page.getByRole("navigation", { name: "Console" }).getByRole("link");
      expect(await menu.allTextContents()).toEqual(["Security"]);
      // Any other page brings it back here rather than showing errors.
      await p.goto("/console/operators");
      await p.page.waitForURL(/\/console\/security$/);

      await p.page.getByRole("button", { name: "Start enrolment" }).click();
      const secret = (await p.page.getByTestId("totp-secret").textContent()) ?? "";
      await p.page.getByLabel("Code from your authenticator (6 digits)").fill(totpCode(secret, Date.now()));
      await p.page.getByRole("button", { name: "Confirm" }).click();
      await p.page.getByText(/^On: signing in asks for a 6-digit code/).waitFor();
      await p.page.getByRole("link", { name: "Operators" }).click();
      await p.page.getByRole("row", { name: new RegExp(boss.email) }).waitFor();
      expect(p.problems).toEqual([]);
      expect(p.foreign).toEqual([]);
    } finally {
      await p.context.close();
    }
  });
});
