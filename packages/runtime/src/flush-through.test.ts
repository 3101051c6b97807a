import { describe, expect, it } from "vitest";
import { flushThrough } from "./flush-through.ts";

/** A connection whose flush fails as nats.js fails it while NATS restarts, `drops` times, then succeeds. */
function restarting(drops: number, closed = false) {
  let calls = 0;
  return {
    calls: () => calls,
    isClosed: () => closed,
    flush: async () => {
      calls++;
      if (calls <= drops) throw new Error("connection disconnected");
    },
  };
}

describe("a boot's last flush", () => {
  it("waits out a NATS restart instead of failing the boot", async () => {
    const nc = restarting(2);
    await expect(flushThrough(nc, 5_000)).resolves.toBeUndefined();
    expect(nc.calls()).toBe(3);
  });

  it("fails at once on a connection closed for good", async () => {
    const nc = restarting(1, true);
    await expect(flushThrough(nc, 5_000)).rejects.toThrow("connection disconnected");
    expect(nc.calls()).toBe(1);
  });

  it("fails when NATS stays away past the wait", async () => {
    const nc = restarting(Number.POSITIVE_INFINITY);
    await expect(flushThrough(nc, 600)).rejects.toThrow("connection disconnected");
    expect(nc.calls()).toBeGreaterThan(1);
  });
});
