import { type Address, beginCell, toNano } from "@ton/core";
import { Blockchain } from "@ton/sandbox";
import { mintJetton, SandboxTonRpc, startToncenterServer, testJetton } from "./ton-sandbox-rpc.ts";

export const TON_DECIMALS = 6;

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
  const server = await startToncenterServer(rpc);

  return {
    rpc,
    url: server.url,
    minter: jetton.minter,
    /** A wallet of the sandbox, deployed, to receive deliveries. */
    wallet: async (name: string): Promise<Address> => (await chain.treasury(name)).address,
    /** Base units of the jetton `owner` holds (0 before its jetton wallet exists). */
    async balanceOf(owner: Address): Promise<bigint> {
      const { stack } = await rpc.runMethod(jetton.minter, "get_wallet_address", [
        { type: "slice", cell: beginCell().storeAddress(owner).endCell() },
      ]);
      const jettonWallet: Address = stack.readAddress();
      if (!(await rpc.isContractDeployed(jettonWallet))) return 0n;
      return (await rpc.runMethod(jettonWallet, "get_wallet_data")).stack.readBigNumber();
    },
    close: () => server.close(),
  };
}
export type TonSandboxChain = Awaited<ReturnType<typeof startTonSandboxChain>>;
