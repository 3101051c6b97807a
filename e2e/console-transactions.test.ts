import type { TimelineEntryDto, TransactionDto } from "@ramp/contracts";
import { type ConsoleClient, createConsoleClient, RampApiError } from "@ramp/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";
import { type Receiver, receiver } from "./support/webhook-receiver.ts";

/**
 * The console's transactions (DESIGN: operating it): a member sees its business's orders only, an
 * operator every business's and finds one by id, deposit address, account number, tx hash or
 * userExternalId; an order's detail carries its whole timeline; the export and the overview agree.
 */
const PASSWORD = "console transactions password";
let stack: Stack;
let hook: Receiver;
let a: { id: string; apiKey: string; webhookSecret: string };
let b: { id: string; apiKey: string };
let operator: ConsoleClient;
let member: ConsoleClient;
let paidOnramp: TransactionDto;
let paidOfframp: TransactionDto;
let otherBusiness: TransactionDto;

async function create(apiKey: string, path: string, body: Record<string, unknown>) {
  const res = await stack.client(apiKey).post(path, body);
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as TransactionDto;
}

async function completed(apiKey: string, id: string): Promise<TransactionDto> {
  return eventually(async () => {
    const r = await stack.client(apiKey).get(`/pub/v2/transaction/${id}`);
    return r.body.status === "COMPLETED" ? (r.body as TransactionDto) : undefined;
  });
}

const statusCodeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: unknown) => (err instanceof RampApiError ? err.statusCode : -1),
  );

beforeAll(async () => {
  stack = await startStack({ serviceEnv: { "chain-watcher": sandboxChainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  a = await stack.createBusiness("Console A");
  b = await stack.createBusiness("Console B");
  hook = await receiver();
  hook.setSecret(a.webhookSecret);
  await stack.client(a.apiKey).patch("/pub/v2/webhook", { rampWebhookURL: `${hook.url}/ramp` });

  const created = await stack.admin("POST", "/operators", {
    email: "ops@console.example",
    password: PASSWORD,
    role: "operator",
  });
  expect(created.status).toBe(201);
  operator = createConsoleClient({ baseUrl: stack.url });
  await operator.signIn({ email: "ops@console.example", password: PASSWORD });
  await operator.members.create({
    email: "viewer@a.example",
    password: PASSWORD,
    role: "viewer",
    businessId: a.id,
  });
  member = createConsoleClient({ baseUrl: stack.url });
  await member.signIn({ email: "viewer@a.example", password: PASSWORD });

  const onramp = { currency: "NGN", chain: "ETHEREUM", mint: ETH_USDC, recipient: EVM_RECIPIENT };
  paidOnramp = await create(a.apiKey, "/pub/v2/onramp", { ...onramp, amount: 5, userExternalId: "cust-42" });
  paidOfframp = await create(a.apiKey, "/pub/v2/offramp", {
    accountNumber: "0123456789",
    bankCode: "000013",
    currency: "NGN",
    chain: "BASE",
    mint: BASE_USDC,
    amount: 6,
  });
  await create(a.apiKey, "/pub/v2/onramp", { ...onramp, amount: 7 });
  otherBusiness = await create(b.apiKey, "/pub/v2/onramp", { ...onramp, amount: 8 });
  await stack.client(a.apiKey).post(`/sandbox/v2/onramp/${paidOnramp.id}/fiat-deposit`, {});
  await stack.client(a.apiKey).post(`/sandbox/v2/offramp/${paidOfframp.id}/token-deposit`, {});
  paidOnramp = await completed(a.apiKey, paidOnramp.id);
  paidOfframp = await completed(a.apiKey, paidOfframp.id);
});
afterAll(async () => {
  await hook?.close();
  await stack?.close();
});

describe("GET /console/v1/transactions", () => {
  it("shows a member its business's orders only, newest first; another business's is not found", async () => {
    const page = await member.transactions.list();
    expect(page.data.map((t) => t.id)).not.toContain(otherBusiness.id);
    expect(page.data).toHaveLength(3);
    expect((page.data[0]?.createdAt ?? "") >= (page.data[2]?.createdAt ?? "")).toBe(true);
    expect((await member.transactions.list({ q: otherBusiness.id })).data).toEqual([]);
    expect(await statusCodeOf(member.transactions.get(otherBusiness.id))).toBe(404);
    expect(await statusCodeOf(member.transactions.list({ businessId: b.id }))).toBe(404);
  });

  it("shows an operator every business's orders, or the one business it names", async () => {
    const all = await operator.transactions.list({ limit: 100 });
    const ids = all.data.map((t) => t.id);
    expect(ids).toEqual(expect.arrayContaining([otherBusiness.id, paidOnramp.id, paidOfframp.id]));
    const onlyB = await operator.transactions.list({ businessId: b.id });
    expect(onlyB.data.map((t) => t.id)).toEqual([otherBusiness.id]);
  });

  it("finds an order by id, deposit address, account number, tx hash or userExternalId", async () => {
    const found = async (q: string) => (await operator.transactions.list({ q })).data.map((t) => t.id);
    expect(await found(otherBusiness.id)).toEqual([otherBusiness.id]);
    expect(await found("cust-42")).toEqual([paidOnramp.id]);
    expect(await found(paidOfframp.address)).toEqual([paidOfframp.id]);
    expect(paidOnramp.signature).not.toBe("");
    expect(await found(paidOnramp.signature)).toEqual([paidOnramp.id]);
    expect(await found(paidOfframp.signature)).toEqual([paidOfframp.id]);
    expect(await found("0123456789")).toEqual([paidOfframp.id]);
    expect(await found("nothing-like-this")).toEqual([]);
    // Combined with the list's filters, and paged like the list.
    expect((await operator.transactions.list({ q: "cust-42", status: "ERROR" })).data).toEqual([]);
  });

  it("refuses a filter it does not know, changing nothing", async () => {
    expect(await statusCodeOf(operator.transactions.list({ status: "LOST" as never }))).toBe(400);
  });
});

describe("GET /console/v1/transactions/{id}", () => {
  const kinds = (t: TimelineEntryDto[]) =>
    t.map((e) => `${e.kind}:${e.detail.status ?? e.detail.outcome ?? ""}`);

  it("an onramp's timeline: statuses, the fiat deposit, the delivery's tx hash and each webhook attempt", async () => {
    const attempts = await eventually(async () => {
      const t = await member.transactions.get(paidOnramp.id);
      const hooks = t.timeline.filter((e) => e.kind === "webhook");
      return hooks.length >= 2 ? t : undefined;
    });
    expect(attempts).toMatchObject({ id: paidOnramp.id, businessId: a.id, status: "COMPLETED" });
    const timeline = attempts.timeline;
    const own = kinds(timeline.filter((e) => e.kind !== "webhook"));
    expect(own[0]).toBe("status:INIT");
    expect(own.filter((k) => k.startsWith("status:"))).toEqual([
      "status:INIT",
      "status:PROCESSING",
      "status:COMPLETED",
    ]);
    expect(own).toEqual(expect.arrayContaining(["deposit:applied", "transfer:COMPLETED"]));
    const deposit = timeline.find((e) => e.kind === "deposit")?.detail;
    expect(deposit?.railReference).toEqual(expect.any(String));
    // As the rail wrote it ("8250.00"), the order's number in JSON.
    expect(Number(deposit?.amount)).toBe(paidOnramp.fiatAmount);
    expect(timeline.find((e) => e.kind === "transfer")?.detail.txHash).toBe(paidOnramp.signature);
    const hooks = timeline.filter((e) => e.kind === "webhook");
    expect(hooks.every((h) => h.detail.delivered === true && h.detail.statusCode === 200)).toBe(true);
    expect([...timeline].map((e) => e.at)).toEqual([...timeline].map((e) => e.at).sort());
  });

  it("an offramp's timeline: the token deposit with its tx hash and the payout's rail reference", async () => {
    const t = await operator.transactions.get(paidOfframp.id);
    expect(kinds(t.timeline.filter((e) => e.kind !== "webhook")).slice(0, 1)).toEqual(["status:INIT"]);
    expect(t.timeline.find((e) => e.kind === "deposit")?.detail).toMatchObject({
      outcome: "applied",
      txHash: paidOfframp.signature,
    });
    expect(t.timeline.find((e) => e.kind === "payout")?.detail).toMatchObject({
      status: "COMPLETED",
      railReference: expect.any(String),
      accountNumber: "0123456789",
    });
  });
});

describe("GET /console/v1/transactions/export and /overview", () => {
  it("exports what the search finds, as the public CSV writes it", async () => {
    const csv = await operator.transactions.export({ q: "cust-42" });
    const lines = csv.trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(paidOnramp.id);
    const mine = (await member.transactions.export()).trim().split("\r\n");
    expect(mine).toHaveLength(4);
    expect(mine.join("\n")).not.toContain(otherBusiness.id);
  });

  it("counts today's orders by status and adds up the completed ones' volume exactly", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const mine = await member.overview({ from: today, to: today });
    expect(mine.days).toHaveLength(1);
    expect(mine.days[0]?.byStatus).toMatchObject({ COMPLETED: 2, INIT: 1, PROCESSING: 0, ERROR: 0 });
    // In kobo, so the test adds integers: the overview's own sum is exact decimal arithmetic.
    const kobo = (n: number) => BigInt(Math.round(n * 100));
    const sum = kobo(paidOnramp.fiatAmount) + kobo(paidOfframp.fiatAmount);
    const [naira, rest] = (mine.days[0]?.fiat[0]?.amount ?? "").split(".");
    expect(mine.days[0]?.fiat.map((f) => f.currency)).toEqual(["NGN"]);
    expect(BigInt(naira ?? "") * 100n + BigInt((rest ?? "").padEnd(2, "0"))).toBe(sum);
    const everyone = await operator.overview({ from: today, to: today });
    expect(everyone.days[0]?.byStatus.INIT).toBeGreaterThanOrEqual(2);
    const month = await member.overview();
    expect(month.days).toHaveLength(30);
    expect(month.to).toBe(today);
    expect(await statusCodeOf(member.overview({ from: "2026-01-01", to: "2026-12-31" }))).toBe(400);
    expect(await statusCodeOf(member.overview({ from: today, to: "2020-01-01" }))).toBe(400);
  });
});
