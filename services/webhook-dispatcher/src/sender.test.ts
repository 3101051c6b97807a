import { describe, expect, it } from "vitest";
import { keptResponse, RESPONSE_EXCERPT_LIMIT } from "./sender.ts";

describe("what the delivery log keeps of a receiver's answer", () => {
  const page = Buffer.from(`<html>${"internal admin console ".repeat(100)}</html>`);

  it("keeps a short excerpt of a public receiver's answer", () => {
    const kept = keptResponse("93.184.215.14", page);
    expect(kept).toBe(page.subarray(0, RESPONSE_EXCERPT_LIMIT).toString("utf8"));
    expect(Buffer.byteLength(kept ?? "")).toBeLessThanOrEqual(RESPONSE_EXCERPT_LIMIT);
  });

  it("keeps nothing from a receiver on a private network, however it was reached", () => {
    for (const address of [
      "127.0.0.1",
      "10.0.0.7",
      "192.168.1.1",
      "::1",
      "::ffff:10.0.0.7",
      "169.254.169.254",
    ]) {
      expect(keptResponse(address, page), address).toBeNull();
    }
    expect(keptResponse(undefined, page)).toBeNull();
  });
});
