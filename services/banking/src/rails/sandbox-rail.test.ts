import { describe, expect, it } from "vitest";
import { createSandboxRail, sandboxAccountName } from "./sandbox-rail.ts";

const rail = createSandboxRail();

describe("sandbox bank rail", () => {
  it("resolves a 10-digit account to a stable name", async () => {
    const a = await rail.nameEnquiry("000013", "0123456789");
    const b = await rail.nameEnquiry("000014", "0123456789");
    expect(a?.accountName).toBe(sandboxAccountName("0123456789"));
    expect(b).toEqual(a);
    expect(a?.accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
  });

  it("fails name enquiry for 999… and for numbers that are not 10 digits", async () => {
    expect(await rail.nameEnquiry("000013", "9990000001")).toBeNull();
    expect(await rail.nameEnquiry("000013", "12345")).toBeNull();
  });

  it("rejects payouts to 888… accounts, pays others, with a reference stable per order", async () => {
    const base = {
      bankCode: "000013",
      accountName: "X",
      currency: "NGN" as const,
      fiatAmount: "100",
      narration: "t",
    };
    const bad = await rail.payout({ ...base, orderId: "o1", accountNumber: "8880000001" });
    const good = await rail.payout({ ...base, orderId: "o2", accountNumber: "0123456789" });
    expect(bad.status).toBe("FAILED");
    expect(good.status).toBe("COMPLETED");
    expect((await rail.payout({ ...base, orderId: "o2", accountNumber: "0123456789" })).reference).toBe(
      good.reference,
    );
  });

  it("gives each order its own 10-digit virtual account", async () => {
    const a = await rail.openVirtualAccount({ ref: "a", currency: "NGN", holder: "H" });
    const b = await rail.openVirtualAccount({ ref: "b", currency: "NGN", holder: "H" });
    expect(a.accountNumber).toMatch(/^\d{10}$/);
    expect(a.accountNumber).not.toBe(b.accountNumber);
  });
});
