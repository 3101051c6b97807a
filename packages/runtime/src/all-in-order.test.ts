import { describe, expect, it } from "vitest";
import { allInOrder } from "./all-in-order.ts";

const settledAfter = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(value) : resolve(value)), ms));

describe("allInOrder", () => {
  it("answers the results in argument order, whatever order they finished in", async () => {
    expect(await allInOrder(settledAfter(30, "a"), settledAfter(0, 1), Promise.resolve(true))).toEqual([
      "a",
      1,
      true,
    ]);
  });

  it("fails with the first failing call in argument order, not the first to fail in time", async () => {
    await expect(
      allInOrder(settledAfter(30, new Error("first"), true), settledAfter(0, new Error("second"), true)),
    ).rejects.toThrow("first");
  });

  it("waits for every call to settle before failing", async () => {
    let finished = false;
    const slow = settledAfter(30, "done").then((v) => {
      finished = true;
      return v;
    });
    await expect(allInOrder(Promise.reject(new Error("fast")), slow)).rejects.toThrow("fast");
    expect(finished).toBe(true);
  });
});
