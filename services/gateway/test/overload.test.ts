import { randomBytes } from "node:crypto";
import { ErrorBody, Routes, Rpc } from "@ramp/contracts";
import { eventually } from "@ramp/devinfra/testing";
import { createLogger, serveRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHeaders, type ConsoleGateway, startConsoleGateway } from "./console-support.ts";

/**
 * A gateway bounded to two writes in flight, on a real NATS and database, in front of a stand-in
 * pricing that holds every market-rate write until the test lets it answer: the third write and those
 * after it are refused at once with 503 and Retry-After, while reads, probes and the console still
 * answer; once the held writes finish, writes are served again.
 */
const log = createLogger("overload-test", "silent");
const WRITE_BOUND = 2;
let gw: ConsoleGateway;

/** Rate writes pricing has received; each waits for `release` before it answers. */
let held = 0;
let release: () => void = () => undefined;
const gate = new Promise<void>((r) => {
  release = r;
});

const rate = (type: "onRamp" | "offRamp", value: number) => ({
  rate: value,
  type,
  id: randomBytes(12).toString("hex"),
  baseCurrency: "USD" as const,
  targetCurrency: "NGN" as const,
  createdAt: new Date().toISOString(),
});

beforeAll(async () => {
  gw = await startConsoleGateway({
    sandbox: true,
    name: "gateway_overload",
    realPricing: true,
    gatewayEnv: { MAX_IN_FLIGHT_WRITES: String(WRITE_BOUND) },
  });
  const pricing = await gw.connectAs("pricing");
  serveRpc(pricing, Rpc.marketRateGet, "pricing", log, async () => {
    throw new Error("no rate yet");
  });
  serveRpc(pricing, Rpc.marketRateSet, "pricing", log, async (req) => {
    held++;
    await gate;
    return {
      onRampRate: rate("onRamp", Number(req.onRamp)),
      offRampRate: rate("offRamp", Number(req.offRamp)),
    };
  });
  await pricing.flush();
});
afterAll(async () => {
  release();
  await gw?.stop();
});

const setRate = () =>
  gw.app.request("/admin/v1/rates/NGN", {
    method: "PUT",
    headers: adminHeaders,
    body: JSON.stringify({ onRamp: 1650, offRamp: 1580 }),
  });

describe("past its bound on requests in flight", () => {
  it("sheds writes with 503 and Retry-After, keeps reads, probes and the console, and serves again after", async () => {
    const first = [setRate(), setRate()];
    await eventually(() => expect(held).toBe(WRITE_BOUND));

    const burst = await Promise.all(Array.from({ length: 5 }, setRate));
    for (const res of burst) {
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      const body = ErrorBody.strict().parse(await res.json());
      expect(body).toMatchObject({ statusCode: 503, error: "Service Unavailable" });
      expect(body.message).toContain("at capacity");
    }
    // None of the refused writes reached pricing: a refusal costs the services nothing.
    expect(held).toBe(WRITE_BOUND);

    // Reads have a bound of their own, and probes and the console are never shed.
    expect((await gw.app.request(Routes.openApiDocument.path)).status).toBe(200);
    expect((await gw.app.request(Routes.healthz.path)).status).toBe(200);
    expect((await gw.app.request("/console/v1/session", { method: "DELETE" })).status).not.toBe(503);

    release();
    for (const res of await Promise.all(first)) expect(res.status).toBe(200);
    const after = await setRate();
    expect(after.status, await after.clone().text()).toBe(200);
    expect(held).toBe(WRITE_BOUND + 1);
  });
});
