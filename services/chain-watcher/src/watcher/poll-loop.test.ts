import type { Chain } from "@ramp/contracts";
import { createLogger } from "@ramp/runtime";
import { describe, expect, it } from "vitest";
import type { WatchDoc } from "../allocation/allocation-store.ts";
import type { DepositStore } from "../deposits/deposit-store.ts";
import { recordTransfers } from "./poll-loop.ts";

const CHAIN: Chain = "BASE";
const ADDRESS = "0xABC0000000000000000000000000000000000001";
const watch: WatchDoc = {
  _id: `${CHAIN}:${ADDRESS}`,
  chain: CHAIN,
  key: ADDRESS,
  address: ADDRESS,
  mints: [],
  purpose: "offramp",
  ref: "order-1",
  allocationId: "offramp:order-1",
  settled: true,
};
const transfer = { txId: "0xfeed", index: 0, to: ADDRESS, mint: "0xAA", amount: "1.37", sender: "0x1" };

describe("a transfer to a watched address", () => {
  it("is told to the consolidation when stored, and again when a re-poll finds it stored already", async () => {
    // A crash between storing a deposit and telling of it leaves the cursor where it was: the re-poll
    // finds the deposit stored, and only telling of it again gets a surplus on a settled address swept.
    const stored = new Set<string>();
    const deposits = {
      record: async (seen: { txId: string }) => {
        const created = !stored.has(seen.txId);
        stored.add(seen.txId);
        return { created };
      },
    } as unknown as DepositStore;
    const told: boolean[] = [];
    const log = createLogger("poll-loop-test", "silent");
    const onDeposit = async (_w: WatchDoc, _mint: string, created: boolean) => {
      told.push(created);
    };
    expect(await recordTransfers(CHAIN, [transfer], [watch], deposits, log, onDeposit)).toBe(1);
    expect(await recordTransfers(CHAIN, [transfer], [watch], deposits, log, onDeposit)).toBe(0);
    expect(told).toEqual([true, false]);
  });
});
