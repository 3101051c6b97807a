import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { lazyLogger, lifecycleLogger } from "./logger.ts";

/** A pino logger writing its lines into `lines`, parsed. */
function capture(level = "info") {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level }, sink), lines };
}

describe("lazyLogger", () => {
  it("makes its child only when first used, and its lines carry the bindings, nested", async () => {
    const { log, lines } = capture();
    let made = 0;
    const request = lazyLogger(log, () => {
      made++;
      return { requestId: "r1" };
    });
    const business = lazyLogger(request, () => ({ businessId: "b1" }));
    expect(made).toBe(0);
    business.info({ status: 200 }, "done");
    request.warn("plain");
    await new Promise((r) => setImmediate(r));
    expect(made).toBe(1);
    expect(lines).toMatchObject([
      { requestId: "r1", businessId: "b1", status: 200, msg: "done", level: 30 },
      { requestId: "r1", msg: "plain", level: 40 },
    ]);
    expect(lines[1]).not.toHaveProperty("businessId");
  });
});

describe("lifecycleLogger", () => {
  it("writes the lines the launcher waits for at warn and error too, and nothing when silent", async () => {
    for (const [level, expected] of [
      ["info", 1],
      ["warn", 1],
      ["error", 1],
      ["silent", 0],
    ] as const) {
      const { log, lines } = capture(level);
      lifecycleLogger(log).info("service started");
      log.info("an ordinary line");
      await new Promise((r) => setImmediate(r));
      expect(
        lines.filter((l) => l.msg === "service started"),
        level,
      ).toHaveLength(expected);
      // Everything else keeps the configured level.
      expect(
        lines.filter((l) => l.msg === "an ordinary line"),
        level,
      ).toHaveLength(level === "info" ? 1 : 0);
    }
  });
});
