import { type Address, beginCell, toNano } from "@ton/core";
import { Blockchain } from "@ton/sandbox";
import { mintJetton, testJetton } from "./ton-jetton.ts";
import { SandboxTonRpc, startToncenterServer } from "./ton-sandbox-rpc.ts";

export const TON_DECIMALS = 6;
/** TEP-74 `transfer`, sent to one's own jetton wallet. */
const JETTON_TRANSFER = 0x0f8a7ea5;

/**
 * A TON runtime for the whole system: @ton/sandbox behind a toncenter v2 endpoint on 127.0.0.1 (the
 * `RPC_URL_TON` chain-watcher gets), the standard TEP-74 jetton standing in for USDT, and `treasury`
 * funded with Toncoin for fees and 1000 of the jetton. The treasury wallet stays undeployed until its
 * first delivery deploys it, as a fresh custody wallet would.
 */
export async function startTonSandboxChain(treasury: Address) {
  const chain = await Blockchain.create();
  const rpc = new SandboxTonRpc(chain);
  const faucet = await chain.treasury("faucet");
  const admin = await chain.treasury("jetton-admin");
  const jetton = testJetton(admin.address);
  rpc.record(await faucet.send({ to: treasury, value: toNano("10"), bounce: false }));
  await mintJetton(rpc, admin, jetton, treasury, 1_000n * 10n ** BigInt(TON_DECIMALS));
  const payer = await chain.treasury("payer");
  await mintJetton(rpc, admin, jetton, payer.address, 1_000n * 10n ** BigInt(TON_DECIMALS));
  const server = await startToncenterServer(rpc);
  const jettonWalletOf = async (owner: Address): Promise<Address> => {
    const { stack } = await rpc.runMethod(jetton.minter, "get_wallet_address", [
      { type: "slice", cell: beginCell().storeAddress(owner).endCell() },
    ]);
    return stack.readAddress();
  };

  return {
    rpc,
    url: server.url,
    minter: jetton.minter,
    /** A wallet of the sandbox, deployed, to receive deliveries. */
    wallet: async (name: string): Promise<Address> => (await chain.treasury(name)).address,
    /**
     * A payer sends `raw` base units to `owner` as a wallet app would (TEP-74 transfer with a forward
     * amount, so `owner` gets the transfer_notification a watcher sees); the owner's transaction of it.
     */
    async pay(owner: Address, raw: bigint): Promise<{ lt: bigint; hash: string }> {
      const body = beginCell()
        .storeUint(JETTON_TRANSFER, 32)
        .storeUint(0, 64)
        .storeCoins(raw)
        .storeAddress(owner)
        .storeAddress(payer.address)
        .storeMaybeRef(null)
        .storeCoins(1n)
        .storeBit(false)
        .endCell();
      rpc.record(await payer.send({ to: await jettonWalletOf(payer.address), value: toNano("0.1"), body }));
      const [tx] = await rpc.getTransactions(owner, { limit: 1 });
      if (!tx) throw new Error("the payment never reached its owner");
      return { lt: tx.lt, hash: tx.hash().toString("hex") };
    },
    /** The faucet sends `nano` Toncoin to `owner`, non-bounceable (an undeployed wallet keeps it). */
    async payToncoin(owner: Address, nano: bigint): Promise<void> {
      rpc.record(await faucet.send({ to: owner, value: nano, bounce: false }));
    },
    /** Toncoin `owner` holds, in nanoton. */
    toncoinOf: (owner: Address) => rpc.getBalance(owner),
    /** Base units of the jetton `owner` holds (0 before its jetton wallet exists). */
    async balanceOf(owner: Address): Promise<bigint> {
      const jettonWallet = await jettonWalletOf(owner);
      if (!(await rpc.isContractDeployed(jettonWallet))) return 0n;
      return (await rpc.runMethod(jettonWallet, "get_wallet_data")).stack.readBigNumber();
    },
    close: () => server.close(),
  };
}
export type TonSandboxChain = Awaited<ReturnType<typeof startTonSandboxChain>>;
