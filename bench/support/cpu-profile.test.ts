import { describe, expect, it } from "vitest";
import { ownerOf as ownerOfFrame, packageOf, summariseProfiles } from "./cpu-profile.ts";

const ownerOf = (url: string, functionName: string) => ownerOfFrame(url, packageOf(url, functionName));

const frame = (id: number, functionName: string, url: string) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
});

describe("ownerOf", () => {
  it("tells the project's code from the libraries it calls and from the I/O and runtime floor", () => {
    expect(ownerOf("file:///repo/services/orders/src/lifecycle/order-moves.ts", "moveOnFunds")).toBe(
      "our code",
    );
    expect(ownerOf("file:///repo/packages/runtime/src/outbox.ts", "publishEntries")).toBe("our code");
    expect(
      ownerOf("file:///repo/node_modules/.pnpm/zod@4/node_modules/zod/v4/core/schemas.js", "parse"),
    ).toBe("libraries for our work");
    expect(ownerOf("node:internal/crypto/hash", "hash")).toBe("libraries for our work");
    expect(ownerOf("file:///repo/node_modules/mongodb/lib/cmap/connection.js", "command")).toBe(
      "clients, HTTP, Node and V8",
    );
    expect(ownerOf("file:///repo/node_modules/@nats-io/nats-core/build/src/nats.js", "request")).toBe(
      "clients, HTTP, Node and V8",
    );
    expect(ownerOf("node:internal/stream_base_commons", "writevGeneric")).toBe("clients, HTTP, Node and V8");
    expect(ownerOf("", "writev")).toBe("clients, HTTP, Node and V8");
    expect(ownerOf("", "(garbage collector)")).toBe("clients, HTTP, Node and V8");
  });
});

describe("summariseProfiles", () => {
  it("sums self time by owner, leaving idle time out of the shares", () => {
    const profile = {
      nodes: [
        frame(1, "(idle)", ""),
        frame(2, "handle", "file:///repo/services/orders/src/service.ts"),
        frame(3, "writev", ""),
        frame(4, "parse", "file:///repo/node_modules/zod/index.js"),
      ],
      startTime: 0,
      // 1 ms samples: 2 idle, 1 ours, 3 writev, 2 zod.
      samples: [1, 1, 2, 3, 3, 3, 4, 4],
      timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
    };
    const summary = summariseProfiles([profile]);
    expect(summary.idleMs).toBe(2);
    expect(summary.busyMs).toBe(6);
    expect(summary.owners).toEqual([
      { name: "clients, HTTP, Node and V8", ms: 3, percent: 50 },
      { name: "libraries for our work", ms: 2, percent: (2 / 6) * 100 },
      { name: "our code", ms: 1, percent: (1 / 6) * 100 },
    ]);
  });
});
