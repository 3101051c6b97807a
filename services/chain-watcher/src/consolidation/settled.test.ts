import type { Chain, OrderStatusChanged } from "@ramp/contracts";
import { createLogger } from "@ramp/runtime";
import { describe, expect, it } from "vitest";
import type { AllocationDoc, AllocationStore, WatchDoc } from "../allocation/allocation-store.ts";
import { createSettledHandlers } from "./settled.ts";
import type { SweepStore, SweepTarget } from "./sweep-store.ts";

/**
 * When a deposit address becomes due for consolidation, against stores kept in memory: what matters is
 * which store calls happen, and in which order, when a deposit and its order's settlement cross.
 */
const CHAIN: Chain = "BASE";
const KEY = "0xABC0000000000000000000000000000000000001";
const MINT = "0x00000000000000000000000000000000000000AA";

function world(opts: { settledInStore: boolean; consolidates?: boolean }) {
  const calls: string[] = [];
  const entry: WatchDoc = {
    _id: `${CHAIN}:${KEY}`,
    chain: CHAIN,
    key: KEY,
    address: KEY,
    mints: [MINT],
    purpose: "offramp",
    ref: "order-1",
    allocationId: "offramp:order-1",
    settled: opts.settledInStore,
  };
  const allocation = { _id: "offramp:order-1", address: KEY, index: 7 } as AllocationDoc;
  const allocations: Partial<AllocationStore> = {
    findWatch: async (chain, key) => {
      calls.push("read watch");
      return chain === CHAIN && key === KEY ? { ...entry } : null;
    },
    get: async (id) => (id === allocation._id ? allocation : null),
    markSettled: async () => {
      entry.settled = true;
      calls.push("settled");
    },
  };
  const due: SweepTarget[] = [];
  const sweeps: Partial<SweepStore> = {
    markDue: async (target) => {
      due.push(target);
      calls.push("due");
    },
  };
  const handlers = createSettledHandlers({
    allocations: allocations as AllocationStore,
    sweeps: sweeps as SweepStore,
    consolidates: () => opts.consolidates ?? true,
    log: createLogger("settled-test", "silent"),
  });
  /** The entry as a poll read it before the order settled. */
  const polledBefore: WatchDoc = { ...entry, settled: false };
  return { handlers, calls, due, polledBefore, entry };
}

const completed = (): OrderStatusChanged =>
  ({
    businessId: "b1",
    order: {
      id: "order-1",
      transactionType: "OFF_RAMP",
      status: "COMPLETED",
      chain: CHAIN,
      address: KEY,
      mint: MINT,
    },
  }) as OrderStatusChanged;

describe("a deposit and its order's settlement crossing", () => {
  it("sweeps a surplus stored by a poll that read the watch list before the order settled", async () => {
    const w = world({ settledInStore: true });
    await w.handlers.onDeposit(w.polledBefore, MINT, true);
    expect(w.due).toEqual([{ chain: CHAIN, address: KEY, index: 7, mint: MINT }]);
  });

  it("sweeps a deposit seen again after a crash cut off its first handling", async () => {
    const w = world({ settledInStore: true });
    await w.handlers.onDeposit({ ...w.entry }, MINT, false);
    expect(w.due).toHaveLength(1);
    expect(w.calls).not.toContain("read watch");
  });

  it("leaves a deposit to an address whose order is still open to the order's own sweep", async () => {
    const w = world({ settledInStore: false });
    await w.handlers.onDeposit(w.polledBefore, MINT, true);
    await w.handlers.onDeposit(w.polledBefore, MINT, false);
    expect(w.due).toEqual([]);
  });

  it("marks the address settled before it is due, so a deposit the poll misses as late is in the balance read", async () => {
    const w = world({ settledInStore: false });
    await w.handlers.onOrderStatus(completed());
    expect(w.calls.filter((x) => x !== "read watch")).toEqual(["settled", "due"]);
  });

  it("reads nothing for a chain without custody (the sandbox adapter)", async () => {
    const w = world({ settledInStore: true, consolidates: false });
    await w.handlers.onDeposit(w.polledBefore, MINT, true);
    expect(w.calls).toEqual([]);
    expect(w.due).toEqual([]);
  });
});
