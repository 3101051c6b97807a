import { createHash } from "node:crypto";
import {
  type JsonHttpServer,
  mintJetton,
  SandboxTonRpc,
  startToncenterServer,
  type TestJetton,
  testJetton,
} from "@ramp/devinfra/ton";
import { Address, beginCell, Dictionary, toNano } from "@ton/core";
import { Blockchain, type SandboxContract, type TreasuryContract } from "@ton/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChainAdapter } from "../../src/chains/adapter.ts";
import { TransferRejected } from "../../src/chains/errors.ts";
import { createTonAdapter } from "../../src/chains/ton/adapter.ts";
import { deriveTonAddress, deriveTonTreasuryWallet } from "../../src/chains/ton/derive.ts";
import { jettonBalance, jettonWalletOf } from "../../src/chains/ton/jetton.ts";
import { type TonRpc, tonRpc } from "../../src/chains/ton/rpc.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
const START = 1_800_000_000;

const spellings = (raw: string) => {
  const a = Address.parse(raw);
  return { raw, eq: a.toString({ bounceable: true }), uq: a.toString({ bounceable: false }) };
};

// The adapter talks to the sandbox directly, and through the production TonClient over a toncenter endpoint.
describe.each(["in-process", "TonClient over toncenter HTTP"] as const)(
  "TON adapter on @ton/sandbox (%s)",
  (face) => {
    let chain: Blockchain;
    let rpc: SandboxTonRpc;
    let server: JsonHttpServer | undefined;
    let adapterRpc: TonRpc;
    let faucet: SandboxContract<TreasuryContract>;
    let admin: SandboxContract<TreasuryContract>;
    let jetton: TestJetton;
    let adapter: ChainAdapter;
    const treasury = deriveTonTreasuryWallet(MNEMONIC).wallet.address;
    const deposit = spellings(deriveTonAddress(MNEMONIC, 0));

    const jettonsOf = async (owner: Address) =>
      jettonBalance(rpc, await jettonWalletOf(rpc, jetton.minter, owner));

    beforeEach(async () => {
      chain = await Blockchain.create();
      chain.now = START;
      rpc = new SandboxTonRpc(chain);
      server = face === "in-process" ? undefined : await startToncenterServer(rpc);
      adapterRpc = server ? tonRpc(server.url) : rpc;
      faucet = await chain.treasury("faucet");
      admin = await chain.treasury("admin");
      jetton = testJetton(admin.address);
      // The treasury wallet is funded while still undeployed; its first send deploys it (seqno 0).
      rpc.record(await faucet.send({ to: treasury, value: toNano("10"), bounce: false }));
      await mintJetton(rpc, admin, jetton, treasury, 1_000_000_000n); // 1000 units of a 6-decimal jetton
      adapter = createTonAdapter({
        mnemonic: MNEMONIC,
        rpc: adapterRpc,
        stablecoin: { address: jetton.minter.toString(), decimals: 6 },
        now: () => chain.now ?? START,
      });
    });

    afterEach(async () => {
      await server?.close();
    });

    it("delivers a jetton transfer that the watcher detects exactly once, with the right amount", async () => {
      const watched = [{ address: deposit.raw, mints: [jetton.minter.toRawString()] }];
      const before = await adapter.poll(null, watched);
      expect(before.transfers).toEqual([]);

      const prepared = await adapter.prepareTransfer({
        requestId: "req-1",
        mint: jetton.minter.toString(),
        recipient: deposit.uq,
        amount: "12.5",
      });
      expect(prepared.signature).toMatch(/^[0-9a-f]{64}$/);
      expect(await adapter.transferStatus(prepared.signature)).toBe("pending");
      await adapter.broadcast(prepared);
      expect(await adapter.transferStatus(prepared.signature)).toBe("confirmed");
      // Re-sending the same BOC is refused by the wallet (seqno used) and moves nothing.
      await adapter.broadcast(prepared);
      expect(await jettonsOf(Address.parse(deposit.raw))).toBe(12_500_000n);
      expect(await jettonsOf(treasury)).toBe(987_500_000n);

      const after = await adapter.poll(before.cursor, watched);
      expect(after.transfers).toHaveLength(1);
      expect(after.transfers[0]).toMatchObject({
        index: 0,
        to: deposit.raw,
        mint: jetton.minter.toRawString(),
        amount: "12.5",
        sender: treasury.toRawString(),
      });
      expect(after.transfers[0]?.txId).toMatch(/^[0-9a-f]{64}$/);
      expect((await adapter.poll(after.cursor, watched)).transfers).toEqual([]);
    });

    it("detects Toncoin deposits for mint TON, and ignores bounces and forged notifications", async () => {
      const watched = [{ address: deposit.raw, mints: ["TON"] }];
      const start = await adapter.poll(null, watched);
      rpc.record(await faucet.send({ to: Address.parse(deposit.raw), value: toNano("1.5"), bounce: false }));
      // Bounceable to an undeployed wallet: it comes straight back, so nothing was deposited.
      rpc.record(await faucet.send({ to: Address.parse(deposit.raw), value: toNano("3"), bounce: true }));
      // Anyone can send the notification op code; only the owner's genuine jetton wallet counts.
      const mallory = await chain.treasury("mallory");
      const forged = beginCell()
        .storeUint(0x7362d09c, 32)
        .storeUint(0, 64)
        .storeCoins(1_000_000_000_000n)
        .storeAddress(mallory.address)
        .storeBit(false)
        .endCell();
      rpc.record(
        await mallory.send({
          to: Address.parse(deposit.raw),
          value: toNano("0.1"),
          bounce: false,
          body: forged,
        }),
      );
      // A treasury Toncoin delivery, sent through the adapter.
      const prepared = await adapter.prepareTransfer({
        requestId: "t",
        mint: "TON",
        recipient: deposit.eq,
        amount: "0.25",
      });
      await adapter.broadcast(prepared);
      expect(await adapter.transferStatus(prepared.signature)).toBe("confirmed");
      // A jetton delivery forwards 1 nanoton with its notification: a jetton deposit, not a Toncoin one.
      const jettonPay = await adapter.prepareTransfer({
        requestId: "j",
        mint: jetton.minter.toString(),
        recipient: deposit.raw,
        amount: "2",
      });
      await adapter.broadcast(jettonPay);

      const jettonWatched = [{ address: deposit.raw, mints: ["TON", jetton.minter.toRawString()] }];
      const { transfers, cursor } = await adapter.poll(start.cursor, jettonWatched);
      expect(transfers.map((t) => [t.mint, t.amount, t.sender])).toEqual([
        ["TON", "1.5", faucet.address.toRawString()],
        ["TON", "0.25", treasury.toRawString()],
        [jetton.minter.toRawString(), "2", treasury.toRawString()],
      ]);
      expect((await adapter.poll(cursor, watched)).transfers).toEqual([]);
    });

    it("treats every spelling of an account as one", async () => {
      const recipient = spellings(deriveTonAddress(MNEMONIC, 1));
      for (const [i, to] of [recipient.eq, recipient.uq, recipient.raw].entries()) {
        const p = await adapter.prepareTransfer({
          requestId: `s${i}`,
          mint: jetton.minter.toRawString(),
          recipient: to,
          amount: "1",
        });
        await adapter.broadcast(p);
      }
      const minter = spellings(jetton.minter.toRawString());
      const watched = [
        { address: recipient.eq, mints: [minter.eq] },
        { address: recipient.uq, mints: [minter.raw] },
        { address: recipient.raw, mints: [minter.uq] },
      ];
      const { transfers } = await adapter.poll(null, watched);
      expect(transfers).toHaveLength(3);
      expect(new Set(transfers.map((t) => t.txId)).size).toBe(3);
      for (const t of transfers)
        expect(t).toMatchObject({ to: recipient.raw, mint: minter.raw, amount: "1" });
    });

    it("lets only one of two transfers prepared at the same seqno run, and fails the other after expiry", async () => {
      const ask = (requestId: string) =>
        adapter.prepareTransfer({
          requestId,
          mint: jetton.minter.toString(),
          recipient: deposit.raw,
          amount: "5",
        });
      const first = await ask("a");
      const second = await ask("a-retry");
      await adapter.broadcast(first);
      await adapter.broadcast(second); // refused by the wallet: the seqno is spent
      expect(await adapter.transferStatus(first.signature)).toBe("confirmed");
      expect(await adapter.transferStatus(second.signature)).toBe("pending");
      expect(await jettonsOf(Address.parse(deposit.raw))).toBe(5_000_000n);
      chain.now = START + 3600;
      expect(await adapter.transferStatus(second.signature)).toBe("failed");
      expect(await adapter.transferStatus(first.signature)).toBe("confirmed");
    });

    it("rejects transfers that can never succeed", async () => {
      const ask = (amount: string, recipient = deposit.raw, mint = jetton.minter.toString()) =>
        adapter.prepareTransfer({ requestId: "x", mint, recipient, amount });
      await expect(ask("1000.000001")).rejects.toBeInstanceOf(TransferRejected);
      await expect(ask("1.0000001")).rejects.toBeInstanceOf(TransferRejected);
      await expect(ask("1", "EQ-nope")).rejects.toBeInstanceOf(TransferRejected);
      await expect(ask("11", deposit.raw, "TON")).rejects.toBeInstanceOf(TransferRejected);
      expect(await adapter.tokenDecimals("TON")).toBe(9);
      expect(await adapter.tokenDecimals(jetton.minter.toRawString())).toBe(6);
      expect(await adapter.recipientSetupCost(deposit.raw, "TON")).toBe("0");
    });

    it("reads decimals of an unconfigured jetton from on-chain metadata, refuses off-chain ones", async () => {
      const dict = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
      const snake = (text: string) => beginCell().storeUint(0, 8).storeStringTail(text).endCell();
      dict.set(createHash("sha256").update("decimals").digest(), snake("4"));
      const onchain = testJetton(admin.address, beginCell().storeUint(0, 8).storeDict(dict).endCell());
      await mintJetton(rpc, admin, onchain, treasury, 10_000n);
      const bare = createTonAdapter({ mnemonic: MNEMONIC, rpc: adapterRpc, now: () => chain.now ?? START });
      expect(await bare.tokenDecimals(onchain.minter.toString())).toBe(4);
      await expect(bare.tokenDecimals(jetton.minter.toString())).rejects.toThrow(/not configured/);
    });
  },
);
