import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { portsInUse } from "./ports.ts";

describe("the launcher's port check", () => {
  it("names a port another program listens on, and only that one", async () => {
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const busy = (other.address() as { port: number }).port;
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, "127.0.0.1", resolve));
    const free = (spare.address() as { port: number }).port;
    await new Promise((resolve) => spare.close(resolve));
    try {
      expect(await portsInUse([busy, free])).toEqual([busy]);
    } finally {
      other.close();
    }
  });
});
