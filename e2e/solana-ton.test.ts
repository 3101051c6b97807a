import { DEV_MNEMONIC, deriveTonTreasuryWallet } from "@ramp/chain-watcher";
import {
  SOLANA_DECIMALS,
  type SolanaLiteSvmChain,
  startSolanaLiteSvmChain,
} from "@ramp/devinfra/litesvm-chain";
import { sleep } from "@ramp/devinfra/testing";
import { startTonSandboxChain, TON_DECIMALS, type TonSandboxChain } from "@ramp/devinfra/ton-chain";
import { beginCell, storeMessage } from "@ton/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Stack, startStack } from "./support/stack.ts";

/**
 * Issue 6 end to end on the non-EVM runtimes: chain-watcher runs its real Solana and TON adapters
 * (RPC_URL_SOLANA, RPC_URL_TON) against LiteSVM behind a Solana JSON-RPC endpoint and @ton/sandbox
 * behind a toncenter v2 endpoint, both on 127.0.0.1. An offramp is paid on SOLANA with a 6-decimal SPL
 * mint; an onramp is delivered on TON from the treasury with the standard TEP-74 jetton.
 */
const tonTreasury = deriveTonTreasuryWallet(DEV_MNEMONIC).wallet.address;

let solana: SolanaLiteSvmChain;
let ton: TonSandboxChain;
let stack: Stack;
let biz: { apiKey: string };

beforeAll(async () => {
  solana = await startSolanaLiteSvmChain();
  ton = await startTonSandboxChain(tonTreasury);
  stack = await startStack({
    serviceEnv: {
      "chain-watcher": {
        RPC_URL_SOLANA: solana.url,
        STABLECOIN_SOLANA: solana.mint,
        RPC_URL_TON: ton.url,
        STABLECOIN_TON: ton.minter.toString({ bounceable: true }),
        STABLECOIN_DECIMALS_TON: String(TON_DECIMALS),
        POLL_INTERVAL_MS: "150",
      },
    },
  });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Solana TON Co");
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await solana?.close();
  await ton?.close();
});

const status = (id: string, wanted: string, timeoutMs = 30_000) =>
  eventually(async () => {
    const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${id}`);
    return r.body.status === wanted ? r.body : undefined;
  }, timeoutMs);

describe("offramp on SOLANA, LiteSVM behind JSON-RPC", () => {
  it("a token transfer to the returned address, seen only through RPC, completes the order", async () => {
    const { status: code, body: tx } = await stack.client(biz.apiKey).post("/pub/v2/offramp", {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      mint: solana.mint, // chain left to its default, SOLANA
      amount: 12.5,
    });
    expect(code).toBe(201);
    expect(tx.chain).toBe("SOLANA");
    const signature = solana.pay(tx.address, 12_500_000n);
    expect(await solana.balanceOf(tx.address)).toBe(12n * 10n ** BigInt(SOLANA_DECIMALS) + 500_000n);
    const done = await status(tx.id, "COMPLETED");
    expect(done).toMatchObject({ signature, sender: solana.payer, amount: 12.5, fiatAmount: 20000 });
  });

  it("chain-watcher killed before it sees the transfer: credited once after restart", async () => {
    const { body: tx } = await stack.client(biz.apiKey).post("/pub/v2/offramp", {
      accountNumber: "0123456789",
      bankCode: "000013",
      currency: "NGN",
      mint: solana.mint,
      amount: 3,
    });
    await stack.stop("chain-watcher");
    const signature = solana.pay(tx.address, 3_000_000n);
    await stack.start("chain-watcher");
    const done = await status(tx.id, "COMPLETED");
    expect(done.signature).toBe(signature);
    await sleep(1_500); // room for a duplicate to show up before counting
    expect(await stack.fundsRecorded(tx.id)).toBe(1);
  });
});

describe("bank account address on SOLANA", () => {
  it("USDC paid to a registered account's address is paid out as an offramp of the registrant", async () => {
    const reg = await stack
      .client(biz.apiKey)
      .post("/pub/v2/bank-account", { bankCode: "000014", accountNumber: "5555555555" });
    expect(reg.status).toBe(201);
    const signature = solana.pay(reg.body.address, 8_000_000n);
    const orders = (await stack.db("orders")).collection("orders");
    const order = await eventually(
      async () => (await orders.findOne({ address: reg.body.address })) ?? undefined,
      30_000,
    );
    const done = await status(order._id.toHexString(), "COMPLETED");
    expect(done).toMatchObject({
      transactionType: "OFF_RAMP",
      chain: "SOLANA",
      signature,
      amount: 8,
      fiatAmount: 12800,
      accountNumber: "5555555555",
    });
  });
});

describe("onramp on TON, @ton/sandbox behind toncenter", () => {
  it("chain-watcher killed between PROCESSING and delivery: delivered exactly once after restart", async () => {
    const recipient = await ton.wallet("restart-recipient");
    const before = await ton.balanceOf(recipient);
    const { body: tx } = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "TON",
      mint: ton.minter.toString({ bounceable: true }),
      recipient: recipient.toRawString(),
      amount: 2,
    });
    await stack.stop("chain-watcher");
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
    await status(tx.id, "PROCESSING");
    await stack.start("chain-watcher");
    await status(tx.id, "COMPLETED");
    await sleep(1_500);
    expect((await ton.balanceOf(recipient)) - before).toBe(2_000_000n);
  });

  it("the fiat deposit delivers exactly `amount` of the jetton; the order completes with that delivery", async () => {
    const recipient = await ton.wallet("recipient");
    const before = await ton.balanceOf(recipient);
    const { status: code, body: tx } = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
      currency: "NGN",
      chain: "TON",
      // Another spelling of the configured stablecoin than the one in STABLECOIN_TON.
      mint: ton.minter.toString({ bounceable: false }),
      recipient: recipient.toString({ bounceable: false }),
      amount: 7.25,
    });
    expect(code).toBe(201);
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
    const done = await status(tx.id, "COMPLETED");
    expect((await ton.balanceOf(recipient)) - before).toBe(7_250_000n);
    // The signature names the treasury's external message that made the delivery.
    const treasuryTxs = await ton.rpc.getTransactions(tonTreasury, { limit: 20 });
    const delivery = treasuryTxs.find(
      (t) =>
        t.inMessage?.info.type === "external-in" &&
        beginCell().store(storeMessage(t.inMessage)).endCell().hash().toString("hex") === done.signature,
    );
    expect(delivery).toBeDefined();
  });
});
