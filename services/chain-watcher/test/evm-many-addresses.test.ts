import { type Anvil, deployTestUsdc, startAnvil, TEST_USDC_ABI } from "@ramp/devinfra/anvil";
import { startRpcProxy } from "@ramp/devinfra/rpc-proxy";
import { Contract, getAddress, hexlify, NonceManager, randomBytes } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WatchedAddress } from "../src/chains/adapter.ts";
import { createEvmAdapter, type EvmAdapter } from "../src/chains/evm/adapter.ts";
import { MAX_TO_TOPICS } from "../src/chains/evm/log-scan.ts";
import { DEV_MNEMONIC, EvmKeyring } from "../src/index.ts";

const WATCHED = 2_000;
const CONFIRMATIONS = 2;

let anvil: Anvil;
let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
let token: Contract;
let tokenAddress: string;

const randomAddress = () => getAddress(hexlify(randomBytes(20)));

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startRpcProxy(anvil.url);
  const deployer = new NonceManager(anvil.account(0));
  tokenAddress = await (await deployTestUsdc(deployer)).getAddress();
  token = new Contract(tokenAddress, TEST_USDC_ABI, deployer);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

/** Deposits to `recipients` (one Transfer log each, in one transaction), then enough blocks to confirm them. */
async function pay(recipients: string[], value: bigint): Promise<void> {
  await (await token.getFunction("mintMany")(recipients, value)).wait();
  await anvil.mine(CONFIRMATIONS);
  // ethers answers a repeated eth_blockNumber from a 250 ms cache; the next poll must see these blocks.
  await new Promise((resolve) => setTimeout(resolve, 300));
}

function adapter(chunk: number): EvmAdapter {
  return createEvmAdapter({
    chain: "BASE",
    rpcUrl: proxy.url,
    keyring: new EvmKeyring(DEV_MNEMONIC),
    confirmations: CONFIRMATIONS,
    stablecoin: tokenAddress.toLowerCase(),
    logChunkBlocks: chunk,
    startLookbackBlocks: 10_000,
  });
}

/**
 * Polls from `cursor` until the cursor stops moving, as the watcher's loop does, and records how many
 * eth_getLogs calls each poll made.
 */
async function drain(evm: EvmAdapter, cursor: string | null, watched: WatchedAddress[]) {
  const transfers: string[] = [];
  const callsPerPoll: number[] = [];
  const toTopicSizes: number[] = [];
  proxy.take("eth_getLogs");
  for (let c = cursor; ; ) {
    const result = await evm.poll(c, watched);
    const calls = proxy.take("eth_getLogs");
    for (const call of calls) {
      const [filter] = call.params as [{ topics: (string | string[] | null)[] }];
      const to = filter.topics[2];
      toTopicSizes.push(Array.isArray(to) ? to.length : 0);
    }
    transfers.push(...result.transfers.map((t) => `${t.to}:${t.amount}:${t.mint}`));
    if (result.cursor === c) return { transfers, callsPerPoll, toTopicSizes, cursor: c };
    callsPerPoll.push(calls.length);
    c = result.cursor;
  }
}

describe("EVM watcher with many watched addresses", () => {
  it(`reads each block range with one eth_getLogs call while watching ${WATCHED} addresses`, async () => {
    const watched = Array.from({ length: WATCHED }, () => ({
      address: randomAddress(),
      mints: [tokenAddress],
    }));
    const paid = [watched[0]!, watched[777]!, watched[WATCHED - 1]!].map((w) => w.address);
    const strangers = [randomAddress(), randomAddress()];
    await pay([...paid, ...strangers], 2_500_000n);
    await pay([watched[1_234]!.address], 1_000_000n);

    const evm = adapter(2);
    try {
      const { transfers, callsPerPoll, toTopicSizes } = await drain(evm, null, watched);
      expect(callsPerPoll.length).toBeGreaterThan(1);
      expect(callsPerPoll.every((n) => n === 1)).toBe(true);
      expect(toTopicSizes.every((n) => n <= MAX_TO_TOPICS)).toBe(true);
      expect(transfers).toEqual([
        ...paid.map((a) => `${a}:2.5:${tokenAddress}`),
        `${watched[1_234]!.address}:1:${tokenAddress}`,
      ]);
    } finally {
      evm.close();
    }
  });

  it("finds the same deposits with a short watch list, still one call per range", async () => {
    const watched = Array.from({ length: 5 }, () => ({ address: randomAddress(), mints: [tokenAddress] }));
    const evm = adapter(1_000);
    try {
      const start = await drain(evm, null, watched);
      await pay([watched[2]!.address, randomAddress(), watched[4]!.address], 3_000_000n);
      const { transfers, callsPerPoll } = await drain(evm, start.cursor, watched);
      expect(callsPerPoll).toEqual([1]);
      expect(transfers).toEqual([
        `${watched[2]!.address}:3:${tokenAddress}`,
        `${watched[4]!.address}:3:${tokenAddress}`,
      ]);
    } finally {
      evm.close();
    }
  });
});
