import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import type { OrderDoc } from "./order-doc.ts";
import { orderEntries } from "./transaction-timeline.ts";

const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, s));
const base = { _id: new ObjectId(), createdAt: at(0), accountNumber: "0123456789", recipient: "0xabc" };

describe("an order's own timeline entries", () => {
  it("an offramp that failed: each status, the error's reason and the payout's rail reference", () => {
    const order = {
      ...base,
      transactionType: "OFF_RAMP",
      status: "ERROR",
      errorReason: "account closed",
      payoutReference: "SBX-OUT-1",
      statusTimes: { PROCESSING: at(5), ERROR: at(9) },
    } as unknown as OrderDoc;
    expect(orderEntries(order)).toEqual([
      { at: at(0).toISOString(), kind: "status", detail: { status: "INIT" } },
      { at: at(5).toISOString(), kind: "status", detail: { status: "PROCESSING" } },
      { at: at(9).toISOString(), kind: "status", detail: { status: "ERROR", errorReason: "account closed" } },
      {
        at: at(9).toISOString(),
        kind: "payout",
        detail: { status: "FAILED", railReference: "SBX-OUT-1", accountNumber: "0123456789" },
      },
    ]);
  });

  it("an onramp still waiting shows its creation alone; a delivered one its transfer's tx hash", () => {
    const waiting = {
      ...base,
      transactionType: "ON_RAMP",
      status: "INIT",
      signature: "",
    } as unknown as OrderDoc;
    expect(orderEntries(waiting).map((e) => e.kind)).toEqual(["status"]);
    const delivered = {
      ...waiting,
      status: "COMPLETED",
      signature: "0xfeed",
      statusTimes: { PROCESSING: at(1), COMPLETED: at(2) },
    } as unknown as OrderDoc;
    expect(orderEntries(delivered).at(-1)).toEqual({
      at: at(2).toISOString(),
      kind: "transfer",
      detail: { status: "COMPLETED", txHash: "0xfeed", recipient: "0xabc" },
    });
  });
});
