import { ErrorBody, RatesDto } from "@ramp/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await stack.setRate("NGN", 1600, 1500);
});
afterAll(async () => stack?.close());

describe("auth", () => {
  it("answers 401 No API key provided without the header", async () => {
    const res = await stack.request("GET", "/pub/v2/rate?currency=NGN");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, message: "No API key provided", error: "Unauthorized" });
  });

  it("answers 401 Invalid API key for an unknown key", async () => {
    const res = await stack.client("rk_nope").get("/pub/v2/rate?currency=NGN");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ statusCode: 401, message: "Invalid API key", error: "Unauthorized" });
  });
});

describe("rates", () => {
  it("applies each business's fee: two businesses see different rates", async () => {
    const a = await stack.createBusiness("A", 0);
    const b = await stack.createBusiness("B", 200);
    const ra = await stack.client(a.apiKey).get("/pub/v2/rate?currency=NGN");
    const rb = await stack.client(b.apiKey).get("/pub/v2/rate?currency=NGN");
    expect(ra.status).toBe(200);
    expect(RatesDto.parse(ra.body)).toBeTruthy();
    expect(ra.body.onRampRate.rate).toBe(1600);
    expect(ra.body.offRampRate.rate).toBe(1500);
    expect(rb.body.onRampRate.rate).toBe(1632);
    expect(rb.body.offRampRate.rate).toBe(1470);
    expect(rb.body.onRampRate.targetCurrency).toBe("NGN");
    expect(rb.body.onRampRate.baseCurrency).toBe("USD");
  });

  it("404 Rate not found for a currency without an active rate", async () => {
    const a = await stack.createBusiness("C");
    const res = await stack.client(a.apiKey).get("/pub/v2/rate?currency=KES");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: "Rate not found", error: "Not Found" });
  });

  it("400 with a message array for an unsupported currency or unknown property", async () => {
    const a = await stack.createBusiness("D");
    const res = await stack.client(a.apiKey).get("/pub/v2/rate?currency=EUR&foo=1");
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error).toBe("Bad Request");
    expect(res.body.message).toEqual(
      expect.arrayContaining([
        "currency must be one of the following values: NGN, GHS, TZS, KES, ZAR, USD",
        "property foo should not exist",
      ]),
    );
  });

  it("503 with Retry-After when pricing is down, and recovery when it is back", async () => {
    const a = await stack.createBusiness("E");
    await stack.stop("pricing");
    const down = await stack.client(a.apiKey).get("/pub/v2/rate?currency=NGN");
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ statusCode: 503, error: "Service Unavailable" });
    expect(down.headers.get("retry-after")).toBe("1");
    await stack.start("pricing");
    const up = await stack.client(a.apiKey).get("/pub/v2/rate?currency=NGN");
    expect(up.status).toBe(200);
  });
});
