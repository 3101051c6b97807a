import { describe, expect, it } from "vitest";
import { consumerLag } from "./consumer-lag.ts";

describe("consumer lag", () => {
  it("reads how long the newest started message waited, growing as a consumer falls behind", () => {
    const lag = consumerLag();
    expect(lag.ms()).toBe(0);
    lag.started(1_000, 1_004);
    expect(lag.ms()).toBe(4);
    // Each message started later after it was stored than the one before: the queue is growing.
    lag.started(1_100, 1_600);
    lag.started(1_200, 2_400);
    expect(lag.ms()).toBe(1_200);
    // Fresher messages again: the queue is shrinking.
    lag.started(2_390, 2_402);
    expect(lag.ms()).toBe(12);
  });

  it("reads nothing once everything given was handled, and never below zero", () => {
    const lag = consumerLag();
    lag.started(10_000, 13_000);
    expect(lag.ms()).toBe(3_000);
    lag.caughtUp();
    expect(lag.ms()).toBe(0);
    // The server's clock a little ahead of ours.
    lag.started(20_005, 20_000);
    expect(lag.ms()).toBe(0);
  });
});
