import { AppError } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { refuseWhileBehind, type SandboxDeps, sandboxDeposit } from "./sandbox-deposit.ts";

/** Deps whose store and chain record what a deposit reads or asks for. */
function recording(lagMs: number) {
  const touched: string[] = [];
  const read = (what: string) => async () => {
    touched.push(what);
    return null;
  };
  const deps = {
    nc: { request: read("nats") },
    store: { getForBusiness: read("orders") },
    payments: { get: read("payments") },
    depositsLagMs: () => lagMs,
    maxLagMs: 1_000,
  } as unknown as SandboxDeps;
  return { deps, touched };
}
const trace = { requestId: "r", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
const request = { businessId: "b", kind: "offramp" as const, id: "o", idempotencyKey: "k" };

describe("sandbox deposits past capacity", () => {
  it("are refused with 503 while deposits already made wait longer than the bound, before anything is read", async () => {
    const { deps, touched } = recording(2_500);
    const refused = await sandboxDeposit(deps, request, trace).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).message).toContain("2.5 s");
    expect(touched).toEqual([]);
    // Within the bound the same deposit goes on to its order.
    const taken = recording(900);
    const answer = await sandboxDeposit(taken.deps, request, trace).catch((e: unknown) => e);
    expect((answer as AppError).status).toBe(404);
    expect(taken.touched).toEqual(["orders"]);
  });

  it("are taken while deposits keep up, and always when the bound is 0", () => {
    expect(() => refuseWhileBehind({ depositsLagMs: () => 1_000, maxLagMs: 1_000 })).not.toThrow();
    expect(() => refuseWhileBehind({ depositsLagMs: () => 60_000, maxLagMs: 0 })).not.toThrow();
    expect(() => refuseWhileBehind({ depositsLagMs: () => 1_001, maxLagMs: 1_000 })).toThrow(AppError);
  });
});
