import { id, parseUnits, zeroPadValue } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvmChain, startEvmChain, EVM_TREASURY as treasury } from "./support/evm-fixture.ts";
import { eventually, type Stack, startStack } from "./support/stack.ts";

/**
 * Issues 3 and 4 end to end on a real local EVM chain: an ERC-20 with 6 decimals deployed here is the
 * settlement stablecoin of BASE (offramp) and ETHEREUM (onramp), both served by the same anvil.
 */
let evm: EvmChain;
let stack: Stack;
let tokenAddress: string;
let biz: { apiKey: string };

beforeAll(async () => {
  evm = await startEvmChain();
  tokenAddress = evm.tokenAddress;
  const chainEnv = { ...evm.chainEnv(["BASE", "ETHEREUM"]), POLL_INTERVAL_MS: "150" };
  stack = await startStack({ serviceEnv: { "chain-watcher": chainEnv } });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("EVM Co");
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await evm?.stop();
});

const balanceOf = (address: string) => evm.balanceOf(address);
const pay = (to: string, amount: string) => evm.pay(to, amount);
const status = (id: string, wanted: string, timeoutMs = 30_000) =>
  eventually(async () => {
    const r = await stack.client(biz.apiKey).get(`/pub/v2/transaction/${id}`);
    return r.body.status === wanted ? r.body : undefined;
  }, timeoutMs);

describe("offramp on BASE (issue 3)", () => {
  const body = () => ({
    accountNumber: "0123456789",
    bankCode: "000013",
    currency: "NGN",
    chain: "BASE",
    mint: tokenAddress,
    amount: 12.5,
  });

  it("a transfer to the returned address completes the order", async () => {
    const { body: tx } = await stack.client(biz.apiKey).post("/pub/v2/offramp", body());
    expect(tx.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const hash = await pay(tx.address, "12.5");
    const done = await status(tx.id, "COMPLETED");
    expect(done).toMatchObject({
      signature: hash,
      sender: evm.payerAddress,
      amount: 12.5,
      fiatAmount: 20000,
    });
  });

  it("the same with an 888… account ends in ERROR", async () => {
    const { body: tx } = await stack
      .client(biz.apiKey)
      .post("/pub/v2/offramp", { ...body(), accountNumber: "8881234567" });
    await pay(tx.address, "12.5");
    await status(tx.id, "ERROR");
  });

  it("chain-watcher killed between the transfer and its confirmation: credited once after restart", async () => {
    const { body: tx } = await stack.client(biz.apiKey).post("/pub/v2/offramp", body());
    evm.stopMining();
    await stack.stop("chain-watcher");
    await pay(tx.address, "12.5");
    await stack.start("chain-watcher");
    evm.startMining();
    await status(tx.id, "COMPLETED");
    // Give a duplicate the time it would need to show up, then count.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await stack.fundsRecorded(tx.id)).toBe(1);
  });
});

describe("TOKEN payment on BASE (issue 5)", () => {
  it("settles when the payer's transfer of totalAmount lands on the deposit address", async () => {
    const { body: p } = await stack
      .client(biz.apiKey)
      .post("/pub/v2/payment", { chain: "BASE", mint: tokenAddress, amount: 20 });
    expect(p).toMatchObject({ status: "AWAITING", totalAmount: 20.2 });
    await pay(p.token.address, "20.2");
    const settled = await eventually(async () => {
      const r = await stack.client(biz.apiKey).get(`/pub/v2/payment/${p.id}`);
      return r.body.status === "SUCCESSFUL" ? r.body : undefined;
    }, 30_000);
    expect(settled.amount).toBe(20);
  });
});

describe("onramp on ETHEREUM (issue 4)", () => {
  // Not an address of the dev mnemonic: those are the service's own deposit addresses.
  const recipient = "0xabcdef0123456789abcdef0123456789abcdef01";
  const body = { currency: "NGN", chain: "ETHEREUM", mint: "", recipient, amount: 7.25 };

  it("the fiat deposit delivers exactly `amount` from the treasury; the order completes with that tx hash", async () => {
    const before = await balanceOf(recipient);
    const { body: tx } = await stack
      .client(biz.apiKey)
      .post("/pub/v2/onramp", { ...body, mint: tokenAddress });
    expect(tx.status).toBe("INIT");
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
    const done = await status(tx.id, "COMPLETED");
    expect((await balanceOf(recipient)) - before).toBe(parseUnits("7.25", 6));
    const receipt = await evm.anvil.provider.getTransactionReceipt(done.signature);
    expect(receipt?.status).toBe(1);
    expect(receipt?.to?.toLowerCase()).toBe(tokenAddress.toLowerCase());
  });

  it("a delivery that can never succeed (treasury short) ends in ERROR", async () => {
    const { body: tx } = await stack
      .client(biz.apiKey)
      .post("/pub/v2/onramp", { ...body, mint: tokenAddress, amount: 5000 });
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
    const failed = await status(tx.id, "ERROR");
    expect(failed.amount).toBe(5000);
  });

  it("chain-watcher killed between PROCESSING and delivery: exactly one transfer after restart", async () => {
    const before = await balanceOf(recipient);
    const fromBlock = await evm.anvil.provider.getBlockNumber();
    const { body: tx } = await stack
      .client(biz.apiKey)
      .post("/pub/v2/onramp", { ...body, mint: tokenAddress });
    await stack.stop("chain-watcher");
    await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
    await status(tx.id, "PROCESSING");
    await stack.start("chain-watcher");
    await status(tx.id, "COMPLETED");
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await balanceOf(recipient)) - before).toBe(parseUnits("7.25", 6));
    // Counted as the token's Transfer events from the treasury to the recipient, not as the treasury's
    // nonce: the treasury also tops up gas for sweeps of the offramps above, at moments of their own.
    const sent = await evm.anvil.provider.getLogs({
      address: tokenAddress,
      fromBlock,
      topics: [
        id("Transfer(address,address,uint256)"),
        zeroPadValue(treasury, 32),
        zeroPadValue(recipient, 32),
      ],
    });
    expect(sent).toHaveLength(1);
  });
});
