import { CSRF_HEADER, SESSION_COOKIE } from "@ramp/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvmChain, startEvmChain, EVM_TREASURY as treasury } from "./support/evm-fixture.ts";
import { eventually, type Stack, startStack } from "./support/stack.ts";

/**
 * Issue 19's chain side end to end on anvil, through the console: a settled offramp's deposit address
 * is consolidated into the treasury; the treasury answers its balances, and a treasury-low exception
 * opens while it is below its minimum and closes by itself once it is funded above it; a deposit the
 * watcher missed is picked up by a reindex and completes its order once.
 */
let evm: EvmChain;
let stack: Stack;
let biz: { apiKey: string };
let operator: Record<string, string>;

beforeAll(async () => {
  evm = await startEvmChain();
  const chainEnv = {
    ...evm.chainEnv(["BASE"]),
    POLL_INTERVAL_MS: "150",
    // Above what the treasury holds (1000 and what sweeps bring), below what a top-up of 100 makes it.
    TREASURY_MIN_BASE: "1100",
    TREASURY_CHECK_INTERVAL_MS: "500",
  };
  stack = await startStack({ serviceEnv: { "chain-watcher": chainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Chain Ops Co");
  const credentials = { email: "ops@example.com", password: "correct horse battery staple" };
  const created = await stack.request("POST", "/admin/v1/operators", {
    body: { ...credentials, role: "operator" },
    headers: { authorization: "Bearer test-admin-token-0123456789" },
  });
  expect(created.status).toBe(201);
  const session = await stack.request("POST", "/console/v1/session", { body: credentials });
  expect(session.status).toBe(200);
  const cookie = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(session.headers.get("set-cookie") ?? "")?.[0];
  operator = { cookie: cookie ?? "", [CSRF_HEADER]: session.body.csrfToken };
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await evm?.stop();
});

const offramp = async () => {
  const { body } = await stack.client(biz.apiKey).post("/pub/v2/offramp", {
    accountNumber: "0123456789",
    bankCode: "000013",
    currency: "NGN",
    chain: "BASE",
    mint: evm.tokenAddress,
    amount: 12.5,
  });
  return body as { id: string; address: string };
};
const status = (id: string, wanted: string, timeoutMs = 30_000) =>
  eventually(async () => {
    const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${id}`);
    return r.body.status === wanted ? r.body : undefined;
  }, timeoutMs);

describe("consolidation through the whole system", () => {
  it("a completed offramp's deposit address ends empty and the treasury gains its tokens", async () => {
    const before = await evm.balanceOf(treasury);
    const tx = await offramp();
    await evm.pay(tx.address, "12.5");
    await status(tx.id, "COMPLETED");
    await eventually(async () => ((await evm.balanceOf(tx.address)) === 0n ? true : undefined), 30_000);
    expect(await evm.balanceOf(treasury)).toBe(before + 12_500_000n);
    expect(await evm.sentCount(tx.address)).toBe(1);
  });
});

describe("treasury in the console", () => {
  it("shows BASE's treasury, low against TREASURY_MIN_BASE; without a session it answers 401", async () => {
    const res = await stack.request("GET", "/console/v1/treasury", { headers: operator });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        chain: "BASE",
        address: treasury,
        native: { symbol: "ETH", balance: expect.stringMatching(/^\d/) },
        stablecoin: { symbol: "USDC", balance: expect.stringMatching(/^1\d{3}(\.\d+)?$/) },
        minimum: "1100",
        low: true,
      },
    ]);
    expect((await stack.request("GET", "/console/v1/treasury")).status).toBe(401);
  });

  it("a low treasury opens one treasury-low exception in the queue, however many readings see it", async () => {
    const open = () =>
      stack.request("GET", "/console/v1/exceptions?kind=treasury-low&status=open", { headers: operator });
    const found = await eventually(async () => {
      const res = await open();
      return res.body.data?.length ? res.body.data : undefined;
    }, 30_000);
    expect(found).toEqual([
      expect.objectContaining({ kind: "treasury-low", chain: "BASE", businessId: null, token: "USDC" }),
    ]);
    // Several readings later (every 500 ms here) it is still the one exception.
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await open()).body.data).toHaveLength(1);
  });

  it("funded above TREASURY_MIN_BASE, the treasury-low exception is resolved by itself, and only it", async () => {
    const [low] = (
      await stack.request("GET", "/console/v1/exceptions?kind=treasury-low&status=open", {
        headers: operator,
      })
    ).body.data as { id: string }[];
    expect(low).toBeDefined();
    await evm.pay(treasury, "100");
    const resolved = await eventually(async () => {
      const res = await stack.request("GET", "/console/v1/exceptions?kind=treasury-low&status=resolved", {
        headers: operator,
      });
      return res.body.data?.length ? res.body.data : undefined;
    }, 30_000);
    expect(resolved).toEqual([
      expect.objectContaining({
        id: low!.id,
        kind: "treasury-low",
        chain: "BASE",
        status: "resolved",
        note: expect.stringMatching(/^treasury back at 11\d{2}(\.\d+)?, above its minimum 1100$/),
      }),
    ]);
    const now = await stack.request("GET", "/console/v1/treasury", { headers: operator });
    expect(now.body.data[0]).toMatchObject({ minimum: "1100", low: false });
    // Readings above the minimum go on: no new exception opens.
    await new Promise((r) => setTimeout(r, 2_000));
    const open = await stack.request("GET", "/console/v1/exceptions?kind=treasury-low&status=open", {
      headers: operator,
    });
    expect(open.body.data).toEqual([]);
  });
});

describe("reindex through the console", () => {
  it("a deposit the watcher's cursor moved past completes its order once, after a reindex", async () => {
    const tx = await offramp();
    await stack.stop("chain-watcher");
    const hash = await evm.pay(tx.address, "12.5");
    const block = (await evm.anvil.provider.getTransactionReceipt(hash))!.blockNumber;
    await evm.anvil.mine(5);
    const cursors = (await stack.db("chain-watcher")).collection<{ _id: string; cursor: string }>(
      "chain_cursors",
    );
    await cursors.updateOne({ _id: "BASE" }, { $set: { cursor: String(block + 3) } });
    await stack.start("chain-watcher");
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await stack.client(biz.apiKey).get(`/pub/v2/transaction/${tx.id}`)).body.status).toBe("INIT");

    const path = "/console/v1/chains/BASE/reindex";
    const tooWide = await stack.request("POST", path, { body: { from: 0, to: 60_000 }, headers: operator });
    expect(tooWide.status).toBe(400);
    const accepted = await stack.request("POST", path, {
      body: { from: block - 2, to: block + 2 },
      headers: operator,
    });
    expect(accepted.body).toMatchObject({ unit: "block" });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({
      chain: "BASE",
      from: String(block - 2),
      to: String(block + 2),
      unit: "block",
    });
    await status(tx.id, "COMPLETED");
    // Asked again: the transfer was seen before, nothing changes.
    const again = await stack.request("POST", path, {
      body: { from: block - 2, to: block + 2 },
      headers: operator,
    });
    expect(again.status).toBe(202);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await stack.fundsRecorded(tx.id)).toBe(1);
    // Each accepted reindex left one audit entry; the refused one none.
    const audit = await stack.request("GET", "/console/v1/audit?action=consoleChainReindex", {
      headers: operator,
    });
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((e: { target: string }) => e.target)).toEqual(["chain:BASE", "chain:BASE"]);
  });
});
