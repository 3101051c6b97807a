import { Commands, Events, Rpc } from "@ramp/contracts";
import { type Anvil, deployTestUsdc, startAnvil, TEST_USDC_ABI } from "@ramp/devinfra/anvil";
import { callRpc, ensureStreams, publish, type Stoppable } from "@ramp/runtime";
import { Contract, NonceManager, parseEther, Transaction, Wallet } from "ethers";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_MNEMONIC, EvmKeyring } from "../src/index.ts";
import type { TransferDoc } from "../src/transfers/transfer-store.ts";
import { collect, eventually, type Harness, sleep, startHarness } from "./support/harness.ts";

/** The service runs on the default dev mnemonic; its treasury is m/44'/60'/1'/0/0 of it. */
const treasury = new EvmKeyring(DEV_MNEMONIC).treasuryAddress;

let anvil: Anvil;
let h: Harness;
let watcher: Stoppable;
let tokenAddress: string;
let payer: Wallet;
let payerSigner: NonceManager;
let token: Contract;

beforeAll(async () => {
  anvil = await startAnvil();
  // NonceManager: the test sends back-to-back and must not race anvil for the pending nonce.
  const deployer = new NonceManager(anvil.account(0));
  payer = anvil.account(1);
  payerSigner = new NonceManager(payer);
  tokenAddress = await (await deployTestUsdc(deployer)).getAddress();
  token = new Contract(tokenAddress, TEST_USDC_ABI, deployer);
  await (await token.getFunction("mint")(payer.address, 1_000_000_000n)).wait();
  await (await token.getFunction("mint")(treasury, 500_000_000n)).wait();
  await anvil.provider.send("anvil_setBalance", [treasury, `0x${parseEther("10").toString(16)}`]);
  h = await startHarness({
    RPC_URL_BASE: anvil.url,
    STABLECOIN_BASE: tokenAddress.toLowerCase(),
    CONFIRMATIONS_BASE: "2",
    POLL_INTERVAL_MS: "150",
  });
  watcher = await h.startWatcher();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await anvil?.stop();
});

async function payTo(address: string, value: bigint) {
  const tx = await (token.connect(payerSigner) as Contract).getFunction("transfer")(address, value);
  const receipt = await tx.wait();
  const log = receipt.logs.find((l: { address: string }) => l.address === tokenAddress);
  return { hash: receipt.hash as string, index: log.index as number };
}

/** Mines a block every 200 ms while `fn` runs, so confirmation depths are reached. */
async function mining<T>(fn: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void anvil.mine(1).catch(() => undefined), 200);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

describe("EVM deposits on anvil", () => {
  it("publishes one deposit once it has the configured confirmations", async () => {
    const events = await collect(h.observer, Events.depositObserved);
    try {
      const { address } = await callRpc(h.nc, Rpc.addressAllocate, {
        chain: "BASE",
        purpose: "offramp",
        ref: "evm-a",
        mints: [tokenAddress],
      });
      const paid = await payTo(address, 12_345_678n);
      const mine = () => events.received.filter((e) => e.payload.txId === paid.hash);
      await sleep(1_000); // several polls at one confirmation: not yet
      expect(mine()).toHaveLength(0);
      await anvil.mine(1);
      await eventually(() => (mine().length > 0 ? true : undefined), 15_000);
      await sleep(1_000);
      expect(mine()).toHaveLength(1);
      expect(mine()[0]).toEqual({
        msgId: `BASE:${paid.hash}:${paid.index}`,
        payload: {
          chain: "BASE",
          txId: paid.hash,
          index: paid.index,
          address,
          mint: tokenAddress,
          amount: "12.345678",
          sender: payer.address,
          purpose: "offramp",
          ref: "evm-a",
          // The configured stablecoin, described from the chain, so orders need not ask chain-watcher.
          token: { decimals: 6, stablecoin: true, usdPrice: "1" },
        },
      });
    } finally {
      await events.close();
    }
  });

  it("publishes exactly once across a restart before the confirmations are reached", async () => {
    const events = await collect(h.observer, Events.depositObserved);
    try {
      const { address } = await callRpc(h.nc, Rpc.addressAllocate, {
        chain: "BASE",
        purpose: "payment",
        ref: "evm-b",
        mints: [tokenAddress],
      });
      const paid = await payTo(address, 5_000_000n);
      await sleep(600);
      await watcher.stop();
      await anvil.mine(3);
      watcher = await h.startWatcher();
      const mine = () => events.received.filter((e) => e.payload.txId === paid.hash);
      await eventually(() => (mine().length > 0 ? true : undefined), 15_000);
      // Another restart after publication must not publish it again either.
      await watcher.stop();
      watcher = await h.startWatcher();
      await anvil.mine(2);
      await sleep(1_500);
      expect(mine()).toHaveLength(1);
      expect(mine()[0]!.payload).toMatchObject({ amount: "5", ref: "evm-b", purpose: "payment" });
    } finally {
      await events.close();
    }
  });
});

describe("EVM treasury transfers on anvil", () => {
  const balanceOf = async (who: string) => (await token.getFunction("balanceOf")(who)) as bigint;

  it("sends once, confirms with the tx hash, and ignores repeats of the same requestId", async () => {
    const results = await collect(h.observer, Events.transferResult);
    const { js } = await ensureStreams(h.nc);
    try {
      const recipient = Wallet.createRandom().address;
      const cmd = {
        requestId: "evm-t1",
        chain: "BASE" as const,
        mint: tokenAddress,
        recipient,
        amount: "7.5",
      };
      const nonceBefore = await anvil.provider.getTransactionCount(treasury);
      await publish(js, Commands.chainTransfer, cmd, "evm-t1:first");
      const mine = () => results.received.filter((r) => r.payload.requestId === "evm-t1");
      await mining(() => eventually(() => (mine().length > 0 ? true : undefined), 20_000));
      const result = mine()[0]!.payload;
      expect(result).toMatchObject({ status: "CONFIRMED", reason: null });
      const receipt = await anvil.provider.getTransactionReceipt(result.signature);
      expect(receipt?.status).toBe(1);
      expect(receipt?.to).toBe(tokenAddress);
      expect(await balanceOf(recipient)).toBe(7_500_000n);

      // The same command again: under a new Nats-Msg-Id, and after a restart.
      await publish(js, Commands.chainTransfer, cmd, "evm-t1:second");
      await watcher.stop();
      watcher = await h.startWatcher();
      await publish(js, Commands.chainTransfer, cmd, "evm-t1:third");
      await mining(() => sleep(2_000));
      expect(await balanceOf(recipient)).toBe(7_500_000n);
      expect(await anvil.provider.getTransactionCount(treasury)).toBe(nonceBefore + 1);
      expect(mine()).toHaveLength(1);
    } finally {
      await results.close();
    }
  });

  it("fails a transfer the treasury cannot cover, with a reason", async () => {
    const results = await collect(h.observer, Events.transferResult);
    try {
      const recipient = Wallet.createRandom().address;
      await publish(
        (await ensureStreams(h.nc)).js,
        Commands.chainTransfer,
        { requestId: "evm-t2", chain: "BASE", mint: tokenAddress, recipient, amount: "1000000" },
        "evm-t2",
      );
      const mine = () => results.received.filter((r) => r.payload.requestId === "evm-t2");
      await eventually(() => (mine().length > 0 ? true : undefined), 15_000);
      expect(mine()[0]!.payload).toMatchObject({ status: "FAILED", signature: "" });
      expect(mine()[0]!.payload.reason).toMatch(/insufficient treasury balance/);
      expect(await balanceOf(recipient)).toBe(0n);
    } finally {
      await results.close();
    }
  });

  it("signs a stored transfer again when another transaction took its nonce before it was sent, and sends it once", async () => {
    // A replica signed this transfer and stored it, then died before sending; meanwhile another
    // signer used the same nonce. Before, the stored one was failed ("nonce already used"), although
    // nothing had been sent.
    await watcher.stop();
    const results = await collect(h.observer, Events.transferResult);
    const mongo = await MongoClient.connect(h.env.MONGODB_URI!);
    try {
      const wallet = new EvmKeyring(DEV_MNEMONIC).treasuryWallet().connect(anvil.provider);
      const recipient = Wallet.createRandom().address;
      const nonce = await anvil.provider.getTransactionCount(treasury, "pending");
      const data = token.interface.encodeFunctionData("transfer", [recipient, 2_500_000n]);
      const raw = await wallet.signTransaction({
        to: tokenAddress,
        data,
        nonce,
        gasLimit: 100_000n,
        gasPrice: (await anvil.provider.getFeeData()).gasPrice,
        chainId: (await anvil.provider.getNetwork()).chainId,
      });
      const stale = Transaction.from(raw).hash!;
      const now = new Date();
      await mongo.db(h.env.MONGODB_DATABASE).collection<TransferDoc>("transfers").insertOne({
        _id: "evm-t3",
        chain: "BASE",
        mint: tokenAddress,
        recipient,
        amount: "2.5",
        status: "broadcasting",
        signature: stale,
        raw,
        sent: false,
        lastBroadcastAt: null,
        reason: null,
        claimedAt: now,
        trace: null,
        createdAt: now,
        updatedAt: now,
        outbox: [],
      });
      // The other signer: the same nonce, mined first.
      await (await wallet.sendTransaction({ to: treasury, value: 0n, nonce })).wait();

      watcher = await h.startWatcher();
      const mine = () => results.received.filter((r) => r.payload.requestId === "evm-t3");
      await mining(() => eventually(() => (mine().length > 0 ? true : undefined), 20_000));
      const result = mine()[0]!.payload;
      expect(result).toMatchObject({ status: "CONFIRMED", reason: null });
      expect(result.signature).not.toBe(stale);
      expect(await balanceOf(recipient)).toBe(2_500_000n);
      expect(await anvil.provider.getTransactionCount(treasury)).toBe(nonce + 2);
    } finally {
      await mongo.close();
      await results.close();
    }
  });

  it("answers tokenInfo from the chain for the configured stablecoin", async () => {
    const info = await callRpc(h.nc, Rpc.tokenInfo, {
      chain: "BASE",
      mint: tokenAddress.toUpperCase().replace("0X", "0x"),
    });
    expect(info).toEqual({ decimals: 6, stablecoin: true, usdPrice: "1", setupCostUsd: "0" });
  });
});
