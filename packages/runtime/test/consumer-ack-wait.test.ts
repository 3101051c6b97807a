import { jetstreamManager } from "@nats-io/jetstream";
import { type NatsConnection, nanos } from "@nats-io/transport-node";
import { Consumers } from "@ramp/contracts";
import { startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { consume, createLogger, ensureStreams } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

let nats: TestNats;
let nc: NatsConnection;
const log = createLogger("test", "silent");

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("webhook-dispatcher");
  await ensureStreams(nc);
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const ackWaitOf = async () => {
  const jsm = await jetstreamManager(nc);
  const { contract, durable } = Consumers.webhookOrders;
  return (await jsm.consumers.info(contract.stream, durable)).config.ack_wait;
};

const start = (ackWaitMs?: number) =>
  consume(nc, {
    ...Consumers.webhookOrders,
    log,
    handler: async () => undefined,
    ...(ackWaitMs === undefined ? {} : { ackWaitMs }),
  });

describe("a durable consumer's ack wait", () => {
  it("is 60 s unless given, and an existing durable takes a new one at the next start", async () => {
    const first = await start();
    await first.stop();
    expect(await ackWaitOf()).toBe(nanos(60_000));
    // How long a crashed handler's messages wait before they are delivered again: set by the version
    // that starts, not by whichever created the durable first.
    const second = await start(40_000);
    await second.stop();
    expect(await ackWaitOf()).toBe(nanos(40_000));
    const third = await start(40_000);
    await third.stop();
    expect(await ackWaitOf()).toBe(nanos(40_000));
  });
});
