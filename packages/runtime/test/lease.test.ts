import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { LeaseBuckets } from "@ramp/contracts";
import { eventually, startTestNats, type TestNats } from "@ramp/devinfra/testing";
import { createLogger, runWithLease, type Stoppable } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

let nats: TestNats;
let a: NatsConnection;
let b: NatsConnection;
const log = createLogger("test", "silent");

beforeAll(async () => {
  nats = await startTestNats(inject("natsBin"), inject("testDataDir"));
  // Two chain-watcher replicas: only the owner's credentials may touch its lease bucket.
  a = await nats.connectAs("chain-watcher");
  b = await nats.connectAs("chain-watcher");
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await nats?.stop();
});

/** A task that counts how many replicas run it at once. */
function probe() {
  const running = new Set<string>();
  let overlap = 0;
  const start = (who: string) => (): Stoppable => {
    running.add(who);
    if (running.size > 1) overlap++;
    return { stop: async () => void running.delete(who) };
  };
  return { running, start, overlaps: () => overlap };
}

describe("a leased loop runs in one replica at a time", () => {
  it("one holder; when it stops, the other takes over; a holder whose lease vanished stops", async () => {
    const p = probe();
    const opts = { contract: LeaseBuckets.chainWatcher, key: "test.loop", ttlMs: 1_500, replicas: 1, log };
    const first = await runWithLease(a, opts, p.start("a"));
    const second = await runWithLease(b, opts, p.start("b"));
    expect([...p.running]).toEqual(["a"]);

    await first.stop();
    await eventually(() => (p.running.has("b") ? true : undefined), 5_000, 50);

    // b's entry disappears as if it had paused past its TTL and a third replica took the key.
    const kv = await new Kvm(a).open(LeaseBuckets.chainWatcher.bucket);
    await kv.purge("test.loop");
    await kv.create("test.loop", "someone-else");
    await eventually(() => (p.running.size === 0 ? true : undefined), 5_000, 50);

    await second.stop();
    expect(p.overlaps()).toBe(0);
  });
});
