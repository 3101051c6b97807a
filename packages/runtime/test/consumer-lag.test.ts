import type { NatsConnection } from "@nats-io/transport-node";
import { Consumers, Events } from "@ramp/contracts";
import { eventually, startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { consume, createLogger, ensureStreams, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

/**
 * A consumer says how far behind it is: while messages published a while ago are still being handled,
 * their age; once it has handled everything, nothing; for a message that arrives while it keeps up,
 * about nothing.
 */
let nats: TestNats;
let publisher: NatsConnection;
let subscriber: NatsConnection;
const log = createLogger("test", "silent");

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  publisher = await nats.connectAs("webhook-dispatcher");
  subscriber = await nats.connectAs("orders");
});
afterAll(async () => {
  await publisher?.close();
  await subscriber?.close();
  await nats?.stop();
});

const signal = async (key: string) => {
  const { js } = await ensureStreams(publisher);
  await publish(js, Events.webhookExceptions, { action: "clear", key, note: "lag test" }, `lag-${key}`);
};

describe("a consumer's lag", () => {
  it("is the age of what it works on while behind, and nothing once it has caught up", async () => {
    for (const key of ["a", "b", "c"]) await signal(key);
    // Published before anyone consumes them: they wait in the stream.
    await new Promise((r) => setTimeout(r, 1_500));

    const started: string[] = [];
    const releases: Array<() => void> = [];
    const consumer = await consume(subscriber, {
      ...Consumers.ordersWebhookExceptions,
      log,
      concurrency: 1,
      handler: (ev) =>
        new Promise<void>((resolve) => {
          started.push(ev.key);
          releases.push(resolve);
        }),
    });
    try {
      await eventually(() => (started.length === 1 ? true : undefined), 10_000, 10);
      expect(consumer.lagMs()).toBeGreaterThanOrEqual(1_400);
      releases[0]?.();
      await eventually(() => (started.length === 2 ? true : undefined), 10_000, 10);
      expect(consumer.lagMs()).toBeGreaterThanOrEqual(1_400);
      releases[1]?.();
      await eventually(() => (started.length === 3 ? true : undefined), 10_000, 10);
      releases[2]?.();
      await eventually(() => (consumer.lagMs() === 0 ? true : undefined), 5_000, 10);

      // Keeping up: a fresh message is started almost as soon as it is stored.
      await signal("d");
      await eventually(() => (started.length === 4 ? true : undefined), 10_000, 10);
      expect(consumer.lagMs()).toBeLessThan(1_000);
      releases[3]?.();
      expect(started).toEqual(["a", "b", "c", "d"]);
    } finally {
      for (const release of releases) release();
      await consumer.stop();
    }
  });
});
