import type { NatsConnection } from "@nats-io/transport-node";
import { Rpc } from "@ramp/contracts";
import { callRpc } from "@ramp/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { BASE_USDC, baseOfframpBody, sandboxChainEnv } from "./support/tokens.ts";

/**
 * Past capacity, sandbox deposits are refused rather than queued: while the deposits already made wait
 * longer than SANDBOX_DEPOSIT_MAX_LAG_MS to be applied, a new one is answered 503 with Retry-After and
 * changes nothing; once orders keeps up again, the same call is taken. The wait is made here the way a
 * backlog makes it: deposits land on the chain while orders is stopped, so orders starts on them late,
 * and, all paying one order, they are applied one after another (the first; the rest as surplus).
 */
let stack: Stack;
let apiKey: string;
let nc: NatsConnection;

beforeAll(async () => {
  stack = await startStack({
    serviceEnv: { "chain-watcher": sandboxChainEnv, orders: { SANDBOX_DEPOSIT_MAX_LAG_MS: "1000" } },
  });
  await stack.setRate("NGN", 1650, 1600);
  apiKey = (await stack.createBusiness("Backpressure Co")).apiKey;
  nc = await stack.connectAs("orders");
});
afterAll(async () => {
  await nc?.close();
  await stack?.close();
});

const offramp = async () => {
  const res = await stack.client(apiKey).post("/pub/v2/offramp", baseOfframpBody());
  expect(res.status).toBe(201);
  return res.body as { id: string; address: string };
};

/** Deposits made while orders is stopped: enough that applying them outlasts a few requests. */
const BACKLOG = 60;

const statusOf = async (id: string) =>
  (await stack.client(apiKey).get(`/pub/v2/transaction/${id}`)).body.status as string;

describe("sandbox deposits past capacity", () => {
  it("are refused with 503 and Retry-After while deposits wait to be applied, and taken once they do not", async () => {
    const late = await offramp();
    const next = await offramp();

    await stack.stop("orders");
    for (let i = 0; i < BACKLOG; i++)
      await callRpc(nc, Rpc.sandboxChainDeposit, {
        chain: "BASE",
        address: late.address,
        mint: BASE_USDC,
        amount: "10",
      });
    // The deposits wait in the stream for orders: each is applied more than the bound after it was made.
    await new Promise((r) => setTimeout(r, 2_500));
    await stack.start("orders");
    await eventually(async () => ((await statusOf(late.id)) !== "INIT" ? true : undefined), 30_000);

    const refused = await stack.client(apiKey).post(`/sandbox/v2/offramp/${next.id}/token-deposit`, {});
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body.message).toMatch(/deposits are being applied [\d.]+ s after they are made/);
    expect(await statusOf(next.id)).toBe("INIT");

    // Once orders has worked off the backlog, the same deposit, retried as Retry-After asks, goes through.
    const taken = await eventually(async () => {
      const r = await stack.client(apiKey).post(`/sandbox/v2/offramp/${next.id}/token-deposit`, {});
      return r.status === 202 ? r : undefined;
    }, 60_000);
    expect(taken.status).toBe(202);
    await eventually(async () => ((await statusOf(next.id)) === "COMPLETED" ? true : undefined), 30_000);
  });
});
