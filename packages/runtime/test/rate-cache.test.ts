import type { NatsConnection } from "@nats-io/transport-node";
import { ChangeFeeds, type ChangeKind, notFound, Rpc } from "@ramp/contracts";
import { eventually, sleep, startTestNats, type TestNats } from "@ramp/devinfra/testing";
import {
  createLogger,
  createRateCache,
  newTraceContext,
  openChangeFeed,
  type RateCache,
  serveRpc,
} from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ratesAnswer } from "./support/rates-answer.ts";

/**
 * The gateway's copy of pricing's rate answers, against a real NATS with each side's own credentials.
 * A stand-in pricing, connected as pricing, answers `rates.get` from a value the test sets, records each
 * request, and can hold its answer back; its change feed is pricing's own bucket.
 */
const log = createLogger("rate-cache-test", "silent");
const BIZ = "650000000000000000000001";
let nats: TestNats;
let gatewayNc: NatsConnection;
let pricingNc: NatsConnection;
let rates: RateCache;
let pricingFeed:
  | Awaited<ReturnType<typeof openChangeFeed<ChangeKind<typeof ChangeFeeds.pricing>>>>
  | undefined;
let pricingRates: { stop(): Promise<void> } | undefined;

let onRamp = 1600;
let hold: Promise<void> | undefined;
const asked: Array<{ fresh?: boolean | undefined }> = [];

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  gatewayNc = await nats.connectAs("gateway");
  pricingNc = await nats.connectAs("pricing");
  pricingRates = serveRpc(pricingNc, Rpc.ratesGet, "pricing", log, async (req) => {
    asked.push({ fresh: req.fresh });
    if (req.currency !== "NGN") throw notFound("Rate not found");
    const rate = onRamp;
    await hold;
    return ratesAnswer(rate);
  });
  // Before pricing has made its bucket: the gateway must start anyway and read through.
  rates = createRateCache(gatewayNc, log);
});
afterAll(async () => {
  await rates?.stop();
  await pricingFeed?.stop();
  await pricingRates?.stop();
  await gatewayNc?.close();
  await pricingNc?.close();
  await nats?.stop();
});

const read = async (currency: "NGN" | "KES" = "NGN") =>
  (await rates.get(BIZ, currency, newTraceContext())).onRampRate.rate;

describe("the gateway's copy of pricing's rate answers", () => {
  it("asks pricing on every read until pricing's feed can be watched, then keeps the answers", async () => {
    const before = asked.length;
    expect(await read()).toBe(1600);
    expect(await read()).toBe(1600);
    expect(asked.length - before).toBe(2);
    pricingFeed = await openChangeFeed(pricingNc, ChangeFeeds.pricing, log);
    // Once the watch is up (within about a second of the bucket appearing), reads stop reaching pricing.
    await eventually(async () => {
      const n = asked.length;
      await read();
      await read();
      return asked.length - n <= 1 ? true : undefined;
    });
    const n = asked.length;
    for (let i = 0; i < 10; i++) expect(await read()).toBe(1600);
    expect(asked.length).toBe(n);
  });

  it("asks again, from pricing's database, after a change to the market rate or the business's fee", async () => {
    const feed = pricingFeed as NonNullable<typeof pricingFeed>;
    for (const [kind, id, rate] of [
      ["market-rate", "NGN", 1700],
      ["profile", BIZ, 1800],
    ] as const) {
      onRamp = rate;
      await feed.changed(kind, id);
      await eventually(async () => ((await read()) === rate ? true : undefined));
      expect(asked.at(-1)?.fresh).toBe(true);
      const n = asked.length;
      expect(await read()).toBe(rate);
      expect(asked.length).toBe(n);
    }
  });

  it("keeps what it kept for other businesses and currencies when one changes", async () => {
    const feed = pricingFeed as NonNullable<typeof pricingFeed>;
    await expect(read("KES")).rejects.toThrow("Rate not found");
    const n = asked.length;
    // A 404 is kept too; another business's fee leaves this one's answers alone.
    await expect(read("KES")).rejects.toThrow("Rate not found");
    await feed.changed("profile", "650000000000000000000002");
    await feed.changed("market-rate", "GHS");
    expect(await read()).toBe(onRamp);
    await expect(read("KES")).rejects.toThrow("Rate not found");
    expect(asked.length).toBe(n);
  });

  it("does not keep an answer that was on its way while a change arrived", async () => {
    const feed = pricingFeed as NonNullable<typeof pricingFeed>;
    await expect(read("KES")).rejects.toThrow("Rate not found");
    // Pricing computes 1900 and holds the answer back.
    let release: () => void = () => undefined;
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    onRamp = 1900;
    const n = asked.length;
    await feed.changed("market-rate", "NGN");
    let late: Promise<number> | undefined;
    await eventually(async () => {
      const pending = read();
      const fromMemory = await Promise.race([pending.then(() => true), sleep(200).then(() => false)]);
      if (fromMemory) return undefined; // the change has not reached the gateway yet
      late = pending;
      return true;
    });
    await eventually(() => (asked.length > n ? true : undefined));
    // Meanwhile the business's fee changes, and the gateway hears of it: its kept 404 for KES (same
    // business) is gone once a read of KES reaches pricing again.
    onRamp = 2000;
    await feed.changed("profile", BIZ);
    await eventually(async () => {
      const m = asked.length;
      await read("KES").catch(() => undefined);
      return asked.length > m ? true : undefined;
    });
    hold = undefined;
    release();
    expect(await late).toBe(1900);
    const m = asked.length;
    expect(await read()).toBe(2000);
    expect(asked.length).toBe(m + 1);
  });
});
