import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "./processes.ts";

describe("freePort", () => {
  it("hands out distinct bindable ports below the kernel's ephemeral range, where no outbound connection takes them", async () => {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    const held = createServer();
    const ports = new Set<number>();
    for (let i = 0; i < 40; i++) ports.add(await freePort());
    expect(ports.size).toBe(40);
    for (const port of ports) expect(port).toBeLessThan(low ?? 32_768);
    // Each can be bound by whoever it was handed to.
    const first = [...ports][0] ?? 0;
    await new Promise<void>((resolve) => held.listen(first, "0.0.0.0", resolve));
    held.close();
  });
});
