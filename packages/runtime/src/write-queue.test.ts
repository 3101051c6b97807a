import { describe, expect, it } from "vitest";
import { createWriteQueue } from "./write-queue.ts";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("write queue", () => {
  it("runs the writes of one key one after another, in order, even when one fails", async () => {
    const queue = createWriteQueue();
    const log: string[] = [];
    const write =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name} start`);
        await tick();
        log.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue("a", write("1")),
      queue("a", write("2", true)),
      queue("a", write("3")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(log).toEqual(["1 start", "1 end", "2 start", "2 end", "3 start", "3 end"]);
  });

  it("lets writes of different keys overlap", async () => {
    const queue = createWriteQueue();
    const log: string[] = [];
    const write = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
    };
    await Promise.all([queue("a", write("a")), queue("b", write("b"))]);
    expect(log.slice(0, 2)).toEqual(["a start", "b start"]);
  });
});
