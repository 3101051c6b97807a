import type { RateHistoryEntryDto } from "@ramp/contracts";
import { loadPricingConfig, startPricing } from "@ramp/pricing";
import { ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminHeaders,
  type Browser,
  type ConsoleGateway,
  consoleCall,
  createOperator,
  signIn,
  startConsoleGateway,
} from "./console-support.ts";

const PASSWORD = "a long enough password";
let gw: ConsoleGateway;
let pricing: { stop(): Promise<void> };
let ops: Browser;

beforeAll(async () => {
  gw = await startConsoleGateway({ sandbox: true, name: "console_rates", realPricing: true });
  // The real pricing service: it owns the rates and their history.
  pricing = await startPricing(loadPricingConfig(gw.envFor("pricing")));
  await createOperator(gw.app, "ops@ops.example", PASSWORD, "operator");
  ops = (await signIn(gw.app, "ops@ops.example", PASSWORD)).browser;
});
afterAll(async () => {
  await pricing?.stop();
  await gw?.stop();
});

describe("market rates in the console", () => {
  it("sets, reads and removes a rate through pricing, each change in its history and the audit log", async () => {
    const set = await consoleCall(gw.app, ops, "PUT", "/console/v1/rates/GHS", {
      onRamp: 15.5,
      offRamp: 14.25,
    });
    expect(set.status).toBe(200);
    const got = await consoleCall(gw.app, ops, "GET", "/console/v1/rates/GHS");
    expect(got.status).toBe(200);
    const rates = (await got.json()) as { onRampRate: { rate: number }; offRampRate: { rate: number } };
    expect([rates.onRampRate.rate, rates.offRampRate.rate]).toEqual([15.5, 14.25]);

    // The admin API's path changes the same rate, and shows in the same history.
    const viaAdmin = await gw.app.request("/admin/v1/rates/GHS", {
      method: "PUT",
      headers: adminHeaders,
      body: JSON.stringify({ onRamp: 16, offRamp: 15 }),
    });
    expect(viaAdmin.status).toBe(200);
    expect((await consoleCall(gw.app, ops, "DELETE", "/console/v1/rates/GHS")).status).toBe(204);
    expect((await consoleCall(gw.app, ops, "GET", "/console/v1/rates/GHS")).status).toBe(404);

    const history = await consoleCall(gw.app, ops, "GET", "/console/v1/rates/history?currency=GHS");
    expect(history.status).toBe(200);
    const { data } = (await history.json()) as { data: RateHistoryEntryDto[] };
    expect(data.map((e) => [e.change, e.onRamp, e.offRamp])).toEqual([
      ["delete", null, null],
      ["set", "16", "15"],
      ["set", "15.5", "14.25"],
    ]);

    const audit = await consoleCall(gw.app, ops, "GET", "/console/v1/audit?limit=3");
    const entries = (
      (await audit.json()) as { data: { action: string; target: string; actor: { kind: string } }[] }
    ).data;
    expect(entries.map((e) => [e.action, e.target, e.actor.kind])).toEqual([
      ["consoleRateDelete", "rate:GHS", "operator"],
      ["adminRateSet", "rate:GHS", "admin-token"],
      ["consoleRateSet", "rate:GHS", "operator"],
    ]);
  });

  it("pages the history with a cursor and rejects a bad currency", async () => {
    for (const onRamp of [1, 2, 3]) {
      await consoleCall(gw.app, ops, "PUT", "/console/v1/rates/KES", { onRamp, offRamp: 1 });
    }
    const first = (await (
      await consoleCall(gw.app, ops, "GET", "/console/v1/rates/history?currency=KES&limit=2")
    ).json()) as {
      data: RateHistoryEntryDto[];
      nextCursor: string;
    };
    expect(first.data.map((e) => e.onRamp)).toEqual(["3", "2"]);
    const rest = (await (
      await consoleCall(
        gw.app,
        ops,
        "GET",
        `/console/v1/rates/history?currency=KES&limit=2&cursor=${first.nextCursor}`,
      )
    ).json()) as { data: RateHistoryEntryDto[]; nextCursor: string };
    expect(rest).toEqual({ data: [expect.objectContaining({ onRamp: "1" })], nextCursor: "" });
    expect((await consoleCall(gw.app, ops, "GET", "/console/v1/rates/XYZ")).status).toBe(400);
  });
});

describe("a business's fee in the console", () => {
  it("is pricing's: set on creation and by PATCH, read back from pricing, kept nowhere in the gateway", async () => {
    const created = await consoleCall(gw.app, ops, "POST", "/console/v1/businesses", {
      name: "Fee Co",
      feeBps: 25,
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const patched = await consoleCall(gw.app, ops, "PATCH", `/console/v1/businesses/${id}`, { feeBps: 40 });
    expect(((await patched.json()) as { feeBps: number }).feeBps).toBe(40);
    const listed = (await (await consoleCall(gw.app, ops, "GET", "/console/v1/businesses")).json()) as {
      data: { id: string; feeBps: number }[];
    };
    expect(listed.data.find((b) => b.id === id)?.feeBps).toBe(40);
    const business = await gw.db.collection("businesses").findOne({ _id: new ObjectId(id) });
    expect(business).not.toHaveProperty("feeBps");
  });
});
