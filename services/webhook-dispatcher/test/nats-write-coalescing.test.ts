import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { WebhookDelivery } from "@ramp/contracts";
import { eventually, startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { coalesceWrites, newTraceContext } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { enqueueDelivery, openWorkQueue } from "../src/work-queue.ts";

declare module "vitest" {
  export interface ProvidedContext {
    natsBin: string;
    testDataDir: string;
  }
}

let nats: TestNats;
let nc: NatsConnection;
beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("webhook-dispatcher");
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const delivery = (deliveryId: string): WebhookDelivery => ({
  deliveryId,
  type: "RAMP",
  apiKeyId: null,
  subjectId: deliveryId,
  sequence: 0,
  url: "http://127.0.0.1:9/hook",
  body: "{}",
});

describe("a connection writing once per event-loop turn (every service's)", () => {
  it("queues everything sent from many callbacks, in the order sent, before and after a reconnect", async () => {
    const reapply = coalesceWrites(nc);
    const js = jetstream(nc);
    const consumer = await openWorkQueue(nc, js, 30_000);

    /** Sends `n` deliveries across several turns without waiting in between, then reads the queue back. */
    const roundTrip = async (prefix: string, n: number) => {
      const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
      const acks: Promise<void>[] = [];
      for (const [i, id] of ids.entries()) {
        acks.push(enqueueDelivery(js, delivery(id), newTraceContext()));
        if (i % 7 === 0) await new Promise((r) => setImmediate(r));
      }
      await Promise.all(acks);
      const got: string[] = [];
      while (got.length < n) {
        const batch = await consumer.fetch({ max_messages: n - got.length, expires: 2_000 });
        for await (const m of batch) {
          got.push(m.json<WebhookDelivery>().deliveryId);
          m.ack();
        }
      }
      return { ids, got };
    };

    const before = await roundTrip("a", 200);
    expect(before.got).toEqual(before.ids);

    await nats.restart();
    // The client reconnects by itself; its new transport is corked too once told.
    await eventually(() =>
      nc.flush().then(
        () => true,
        () => undefined,
      ),
    );
    reapply();
    const after = await roundTrip("b", 200);
    expect(after.got).toEqual(after.ids);
  });
});
