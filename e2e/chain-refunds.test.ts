import { DEV_MNEMONIC, deriveSolanaTreasuryKeypair, deriveTonTreasuryWallet } from "@ramp/chain-watcher";
import type { Chain, ExceptionDto, RefundDto } from "@ramp/contracts";
import { type SolanaLiteSvmChain, startSolanaLiteSvmChain } from "@ramp/devinfra/litesvm-chain";
import { startRpcProxy } from "@ramp/devinfra/rpc-proxy";
import { sleep } from "@ramp/devinfra/testing";
import { startTonSandboxChain, TON_DECIMALS, type TonSandboxChain } from "@ramp/devinfra/ton-chain";
import { Keypair } from "@solana/web3.js";
import { Address } from "@ton/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInOperator } from "./support/console-operator.ts";
import { eventually, type Stack, startStack } from "./support/stack.ts";

/**
 * Issue 19's "consolidation then refund" on the non-EVM families, every service real: LiteSVM behind
 * JSON-RPC and @ton/sandbox behind toncenter, both on 127.0.0.1. An offramp's deposit is swept into the
 * treasury; then a surplus deposit (swept as well) and an ERROR offramp's tokens are refunded by an
 * operator clicking many times at once: the treasury pays each refund once, the exact amount, to the
 * address given. A sweep that keeps failing (Solana's RPC, behind a proxy, refusing what signing asks
 * for) is held with a `stuck` exception, and resolving that exception in the console sweeps it.
 */
const solanaTreasury = deriveSolanaTreasuryKeypair(DEV_MNEMONIC).publicKey.toBase58();
const tonTreasury = deriveTonTreasuryWallet(DEV_MNEMONIC).wallet.address;

/** What a test needs of one chain: its stablecoin, a payer, balances and two refund destinations. */
interface ChainUnderTest {
  chain: Chain;
  mint: string;
  treasury: string;
  pay(address: string, raw: bigint): Promise<unknown>;
  balanceOf(owner: string): Promise<bigint>;
  /** A fresh address to refund to (an account the chain has never seen on Solana, a live wallet on TON). */
  destination(name: string): Promise<string>;
}

let solana: SolanaLiteSvmChain;
let solanaRpc: Awaited<ReturnType<typeof startRpcProxy>>;
let ton: TonSandboxChain;
let stack: Stack;
let biz: { apiKey: string };
let session: Record<string, string>;
const chains: Record<"SOLANA" | "TON", () => ChainUnderTest> = {
  SOLANA: () => ({
    chain: "SOLANA",
    mint: solana.mint,
    treasury: solanaTreasury,
    pay: async (address, raw) => solana.pay(address, raw),
    balanceOf: (owner) => solana.balanceOf(owner),
    destination: async () => Keypair.generate().publicKey.toBase58(),
  }),
  TON: () => ({
    chain: "TON",
    mint: ton.minter.toString({ bounceable: true }),
    treasury: tonTreasury.toRawString(),
    pay: (address, raw) => ton.pay(Address.parse(address), raw),
    balanceOf: (owner) => ton.balanceOf(Address.parse(owner)),
    destination: async (name) => (await ton.wallet(name)).toString({ bounceable: false }),
  }),
};

beforeAll(async () => {
  solana = await startSolanaLiteSvmChain();
  // The Solana treasury pays every fee (sweeps, refunds) and holds no token until sweeps bring some.
  solana.node.airdrop(deriveSolanaTreasuryKeypair(DEV_MNEMONIC).publicKey, 5_000_000_000n);
  solanaRpc = await startRpcProxy(solana.url);
  ton = await startTonSandboxChain(tonTreasury);
  stack = await startStack({
    serviceEnv: {
      "chain-watcher": {
        RPC_URL_SOLANA: solanaRpc.url,
        STABLECOIN_SOLANA: solana.mint,
        RPC_URL_TON: ton.url,
        STABLECOIN_TON: ton.minter.toString({ bounceable: true }),
        STABLECOIN_DECIMALS_TON: String(TON_DECIMALS),
        POLL_INTERVAL_MS: "150",
        // A step that cannot be prepared fails after 3 tries, so a sweep is held within seconds.
        TRANSFER_MAX_ATTEMPTS: "3",
      },
    },
  });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Refunds Across Chains Co");
  session = await signedInOperator(stack.url);
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await solanaRpc?.close();
  await solana?.close();
  await ton?.close();
});

const console_ = (method: string, path: string, body?: unknown) =>
  stack.request(method, `/console/v1${path}`, { body, headers: session });

const status = (id: string, wanted: string) =>
  eventually(async () => {
    const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${id}`);
    return r.body.status === wanted ? true : undefined;
  }, 45_000);

const openException = (kind: string, orderId: string) =>
  eventually(async () => {
    const res = await console_("GET", `/exceptions?kind=${kind}&status=open&limit=100`);
    return (res.body.data as ExceptionDto[]).find((e) => e.orderId === orderId);
  }, 45_000);

const resolved = (id: string) =>
  eventually(async () => {
    const res = await console_("GET", "/exceptions?status=resolved&limit=100");
    return (res.body.data as ExceptionDto[]).some((e) => e.id === id) ? true : undefined;
  }, 45_000);

/** Waits until `owner` holds exactly `raw`, then a little longer, and says what it holds then. */
async function settledBalance(c: ChainUnderTest, owner: string, raw: bigint): Promise<bigint> {
  await eventually(async () => ((await c.balanceOf(owner)) === raw ? true : undefined), 45_000);
  await sleep(1_500); // room for a second send to land before counting
  return c.balanceOf(owner);
}

async function offramp(c: ChainUnderTest, accountNumber: string) {
  const res = await stack.client(biz.apiKey).post("/pub/v2/offramp", {
    accountNumber,
    bankCode: "000013",
    currency: "NGN",
    chain: c.chain,
    mint: c.mint,
    amount: 10,
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; address: string };
}

describe.each(["SOLANA", "TON"] as const)("consolidation then refund on %s", (name) => {
  it("a surplus deposit after the sweep is refunded from the treasury once, the exact amount", async () => {
    const c = chains[name]();
    const order = await offramp(c, "0123456789");
    const treasuryBefore = await c.balanceOf(c.treasury);
    await c.pay(order.address, 10_000_000n);
    await status(order.id, "COMPLETED");
    // Swept: the deposit address ends empty and the treasury holds what it held.
    await settledBalance(c, order.address, 0n);
    expect(await c.balanceOf(c.treasury)).toBe(treasuryBefore + 10_000_000n);

    // Paid again after the order completed: a fund to refund, swept into the treasury too.
    await c.pay(order.address, 2_500_000n);
    const exception = await openException("refundable-funds", order.id);
    expect(exception).toMatchObject({ chain: name, amount: "2.5", status: "open" });
    await settledBalance(c, order.address, 0n);
    expect(await c.balanceOf(c.treasury)).toBe(treasuryBefore + 12_500_000n);

    const to = await c.destination(`surplus-${name}`);
    const clicks = await Promise.all(
      Array.from({ length: 8 }, () =>
        console_("POST", `/funds/${exception.fundId}/refund`, { toAddress: to }),
      ),
    );
    expect(clicks.map((r) => r.status)).toEqual(Array(8).fill(202));
    expect(new Set(clicks.map((r) => (r.body as RefundDto).id))).toEqual(new Set([exception.fundId]));
    expect(await settledBalance(c, to, 2_500_000n)).toBe(2_500_000n);
    // Paid from the treasury, once.
    expect(await c.balanceOf(c.treasury)).toBe(treasuryBefore + 10_000_000n);
    await resolved(exception.id);
    const again = await console_("POST", `/funds/${exception.fundId}/refund`, { toAddress: to });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ state: "sent", amount: "2.5" });
    await sleep(1_000);
    expect(await c.balanceOf(to)).toBe(2_500_000n);
  });

  it("an ERROR offramp's deposit is swept, and its refund is paid from the treasury once; the order stays ERROR", async () => {
    const c = chains[name]();
    // The rail refuses payouts to accounts 888…: the order ends ERROR after its deposit.
    const order = await offramp(c, "8880000007");
    const treasuryBefore = await c.balanceOf(c.treasury);
    await c.pay(order.address, 10_000_000n);
    await status(order.id, "ERROR");
    const exception = await openException("payout-failed", order.id);
    await settledBalance(c, order.address, 0n);
    expect(await c.balanceOf(c.treasury)).toBe(treasuryBefore + 10_000_000n);

    const to = await c.destination(`error-${name}`);
    const clicks = await Promise.all(
      Array.from({ length: 6 }, () =>
        console_("POST", `/transactions/${order.id}/refund`, { toAddress: to }),
      ),
    );
    expect(clicks.map((r) => r.status)).toEqual(Array(6).fill(202));
    expect(await settledBalance(c, to, 10_000_000n)).toBe(10_000_000n);
    expect(await c.balanceOf(c.treasury)).toBe(treasuryBefore);
    await resolved(exception.id);
    expect((await stack.client(biz.apiKey).get(`/pub/v2/transaction/${order.id}`)).body.status).toBe("ERROR");
  });
});

describe("a held sweep, released from the exceptions queue", () => {
  it("opens `stuck`; resolving it sweeps the address once, audited; a second resolve changes nothing", async () => {
    const c = chains.SOLANA();
    const order = await offramp(c, "0123456789");
    const treasuryBefore = await c.balanceOf(c.treasury);
    // What this sweep's signing asks the node for fails, as if the node were down (nothing else signs).
    solanaRpc.refused.add("getLatestBlockhash");
    let exception: ExceptionDto;
    try {
      await c.pay(order.address, 10_000_000n);
      await status(order.id, "COMPLETED");
      exception = await eventually(async () => {
        const res = await console_("GET", "/exceptions?kind=stuck&status=open&limit=100");
        return (res.body.data as ExceptionDto[]).find((e) => e.detail.includes(order.address));
      }, 60_000);
    } finally {
      solanaRpc.refused.delete("getLatestBlockhash");
    }
    expect(exception).toMatchObject({ kind: "stuck", chain: "SOLANA", amount: "10", businessId: null });
    expect(exception.detail).toMatch(/held after 3 failed rounds/);
    await sleep(1_000);
    expect(await c.balanceOf(order.address)).toBe(10_000_000n);

    const resolve = () => console_("POST", `/exceptions/${exception.id}/resolve`, { note: "RPC node back" });
    expect((await Promise.all([resolve(), resolve()])).map((r) => r.status)).toEqual([204, 204]);
    await settledBalance(c, order.address, 0n);
    expect(await c.balanceOf(c.treasury)).toBe(treasuryBefore + 10_000_000n);
    expect((await resolve()).status).toBe(204);
    await sleep(1_000);
    expect(await c.balanceOf(c.treasury)).toBe(treasuryBefore + 10_000_000n);
    const sweeps = (await stack.db("chain-watcher")).collection("sweeps");
    expect(await sweeps.countDocuments()).toBe(0);
    const audit = await console_("GET", "/audit?action=consoleExceptionResolve&limit=10");
    expect(audit.body.data.map((e: { target: string }) => e.target)).toEqual(
      Array(3).fill(`exception:${exception.id}`),
    );
  });
});
