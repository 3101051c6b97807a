import type { NatsConnection } from "@nats-io/transport-node";
import { Consumers, Events, STREAMS } from "@ramp/contracts";
import { eventually, sleep, startTestNatsCluster, type TestNatsCluster } from "@ramp/devinfra/testing";
import { consume, createLogger, ensureStreams, type JetStreamHandles, publish } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

/**
 * The local three-node cluster a replicated deployment is tested on: streams created with three
 * replicas keep taking and keeping messages while the node leading them is `kill -9`ed, and the node
 * catches up when it comes back.
 */
let nats: TestNatsCluster;
let nc: NatsConnection;
let handles: JetStreamHandles;
beforeAll(async () => {
  nats = await startTestNatsCluster(inject("natsBin"), inject("testDataDir"));
  nc = await nats.connectAs("banking");
  handles = await ensureStreams(nc, 3);
}, 120_000);
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const deposit = (reference: string) => ({
  ref: "order-1",
  reference,
  accountNumber: "0123456789",
  currency: "NGN" as const,
  fiatAmount: "1000.50",
  payerName: "Ada",
});

describe("three-node NATS cluster", () => {
  it("runs a stream on all three nodes that survives its leader's kill -9 and catches the node up", async () => {
    const stream = STREAMS.events.name;
    const info = await handles.jsm.streams.info(stream);
    expect(info.config.num_replicas).toBe(3);
    const peers = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)];
    expect(new Set(peers).size).toBe(3);

    await publish(handles.js, Events.fiatDepositReceived, deposit("before"), "dep-before");
    const leader = info.cluster?.leader ?? "";
    const victim = Number(leader.slice(1)) - 1;
    await nats.cluster.kill(victim);
    expect(nats.cluster.up(victim)).toBe(false);

    // A new leader is elected among the two left; until then a publish may time out, so it is retried
    // with the same message id, which the stream keeps once.
    await eventually(async () => {
      await publish(handles.js, Events.fiatDepositReceived, deposit("during"), "dep-during");
      return true;
    }, 30_000);
    const during = await handles.jsm.streams.info(stream);
    expect(during.cluster?.leader).not.toBe(leader);
    expect(during.state.messages).toBe(2);

    await nats.cluster.start(victim);
    await eventually(async () => {
      const after = await handles.jsm.streams.info(stream);
      const current = (after.cluster?.replicas ?? []).filter((r) => r.current && !r.offline).length;
      return current === 2 && after.state.messages === 2 ? true : undefined;
    }, 30_000);
  }, 120_000);

  it("a service booting while JetStream has no quorum waits it out and comes up by itself", async () => {
    const boot = await nats.connectAs("orders");
    try {
      // Only the node this connection is on stays up: no meta leader, so no stream or consumer can be
      // looked up or made, for longer than one JetStream call waits for an answer (5 s).
      const on = Number(boot.info?.server_name.slice(1)) - 1;
      const others = [0, 1, 2].filter((i) => i !== on);
      for (const i of others) await nats.cluster.kill(i);
      const seen: string[] = [];
      let failed: unknown = null;
      const starting = consume(boot, {
        ...Consumers.ordersFiatDeposits,
        log: createLogger("orders", "silent"),
        handler: async (d) => {
          seen.push(d.reference);
        },
      }).catch((err: unknown) => {
        failed = err;
        return null;
      });
      await sleep(8_000);
      expect(failed).toBeNull();
      for (const i of others) await nats.cluster.start(i);
      const consumer = await starting;
      expect(failed).toBeNull();
      // Two nodes rejoining and electing leaders again takes seconds, more on a busy CI machine.
      await eventually(async () => {
        await publish(handles.js, Events.fiatDepositReceived, deposit("after-boot"), "dep-after-boot");
        return seen.includes("after-boot") ? true : undefined;
      }, 60_000);
      await consumer?.stop();
    } finally {
      await boot.close();
    }
  }, 120_000);
});
