import type { PayoutCommand } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { createSandboxRail, SANDBOX_FLAKY_FAILURES } from "../rails/sandbox-rail.ts";
import { payWithRetries } from "./rail-retries.ts";

const command = (orderId: string, accountNumber: string): PayoutCommand => ({
  orderId,
  bankCode: "000013",
  accountNumber,
  accountName: "ADA OKAFOR",
  currency: "NGN",
  fiatAmount: "1000.00",
  narration: "test",
});
const policy = { attempts: 4, baseDelayMs: 100, timeoutMs: 1_000 };

function recorder() {
  const waits: number[] = [];
  const retried: number[] = [];
  return {
    waits,
    retried,
    sleep: async (ms: number) => void waits.push(ms),
    onRetry: (attempt: number) => void retried.push(attempt),
  };
}

describe("payouts asked again when the rail fails in a way that may pass", () => {
  it("a rail that answers 503 twice pays on the third ask, with doubling waits", async () => {
    const r = recorder();
    const answer = await payWithRetries(
      createSandboxRail(),
      command("o1", "7770000001"),
      policy,
      r.sleep,
      r.onRetry,
    );
    expect(answer).toMatchObject({ status: "COMPLETED", reason: null });
    expect(r.retried).toEqual([1, 2]);
    expect(r.waits).toEqual([100, 200]);
    expect(SANDBOX_FLAKY_FAILURES).toBe(2);
  });

  it("a refusal ends it at once, without asking again", async () => {
    const r = recorder();
    const answer = await payWithRetries(
      createSandboxRail(),
      command("o2", "8880000001"),
      policy,
      r.sleep,
      r.onRetry,
    );
    expect(answer).toMatchObject({ status: "FAILED", reason: "Beneficiary bank rejected the transfer" });
    expect(r.retried).toEqual([]);
  });

  it("a rail that stays down fails the payout after the last ask, saying why", async () => {
    const r = recorder();
    const answer = await payWithRetries(
      createSandboxRail(),
      command("o3", "7760000001"),
      policy,
      r.sleep,
      r.onRetry,
    );
    expect(answer.status).toBe("FAILED");
    expect(answer.reason).toMatch(/^Bank rail unavailable after 4 attempts: .*503/);
    expect(r.retried).toEqual([1, 2, 3, 4]);
    expect(r.waits).toEqual([100, 200, 400]);
  });

  it("a payout resumed after a crash goes on counting: only the asks left, each failure stored first", async () => {
    const r = recorder();
    const stored: Array<[number, string]> = [];
    const asks = {
      failed: 2,
      lastFailure: "sandbox rail: 503 Service Unavailable",
      record: async (failed: number, failure: string) => void stored.push([failed, failure]),
    };
    const answer = await payWithRetries(
      createSandboxRail(),
      command("o6", "7760000001"),
      policy,
      r.sleep,
      r.onRetry,
      asks,
    );
    expect(answer.reason).toMatch(/^Bank rail unavailable after 4 attempts: .*503/);
    expect(r.retried).toEqual([3, 4]);
    expect(stored.map(([n]) => n)).toEqual([3, 4]);
    // Every ask already spent: failed at once, with the stored reason, the rail not asked again.
    const spent = recorder();
    const none = await payWithRetries(
      createSandboxRail(),
      command("o7", "0123456789"),
      policy,
      spent.sleep,
      spent.onRetry,
      { ...asks, failed: 4 },
    );
    expect(none).toMatchObject({
      status: "FAILED",
      reason: `Bank rail unavailable after 4 attempts: ${asks.lastFailure}`,
    });
    expect(spent.waits).toEqual([]);
  });

  it("an ask that never answers is a timeout, asked again", async () => {
    let asks = 0;
    const rail = {
      ...createSandboxRail(),
      payout: (req: PayoutCommand) => {
        asks++;
        return asks === 1 ? new Promise<never>(() => {}) : createSandboxRail().payout(req);
      },
    };
    const r = recorder();
    const answer = await payWithRetries(
      rail,
      command("o4", "0123456789"),
      { ...policy, timeoutMs: 20 },
      r.sleep,
      r.onRetry,
    );
    expect(answer.status).toBe("COMPLETED");
    expect(asks).toBe(2);
  });

  it("a failure that is not the rail's is thrown for the command's redelivery", async () => {
    const rail = { ...createSandboxRail(), payout: async () => Promise.reject(new TypeError("bug")) };
    await expect(payWithRetries(rail, command("o5", "0123456789"), policy)).rejects.toThrow("bug");
  });
});
