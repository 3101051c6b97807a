import { DEV_MNEMONIC, EvmKeyring } from "@ramp/chain-watcher";
import type { Chain } from "@ramp/contracts";
import { type Anvil, deployTestUsdc, startAnvil, TEST_USDC_ABI } from "@ramp/devinfra/anvil";
import { Contract, type ContractTransactionResponse, NonceManager, parseEther, parseUnits } from "ethers";

/** The service's treasury on every EVM chain: the first treasury key of the dev mnemonic. */
export const EVM_TREASURY = new EvmKeyring(DEV_MNEMONIC).treasuryAddress;

export interface EvmChainOptions {
  /** Tokens (6 decimals) minted to the payer and to the treasury. */
  payerTokens?: string;
  treasuryTokens?: string;
  /** A block this often, so confirmation depths are reached while tests wait. */
  blockEveryMs?: number;
}

/**
 * A real local EVM chain for end-to-end tests: anvil with a TestUSDC (6 decimals) deployed, a payer
 * holding tokens, the service's treasury holding tokens and gas, and a block mined every few hundred
 * milliseconds. `chainEnv` points chain-watcher at it with that token as the settlement stablecoin.
 */
export async function startEvmChain(opts: EvmChainOptions = {}) {
  const anvil: Anvil = await startAnvil();
  const deployer = new NonceManager(anvil.account(0));
  const payer = new NonceManager(anvil.account(1));
  const payerAddress = await payer.getAddress();
  const tokenAddress = await (await deployTestUsdc(deployer)).getAddress();
  const token = new Contract(tokenAddress, TEST_USDC_ABI, deployer);
  const mint = async (to: string, amount: string) =>
    (await token.getFunction("mint")(to, parseUnits(amount, 6))).wait();
  await mint(payerAddress, opts.payerTokens ?? "1000");
  await mint(EVM_TREASURY, opts.treasuryTokens ?? "1000");
  await anvil.provider.send("anvil_setBalance", [EVM_TREASURY, `0x${parseEther("10").toString(16)}`]);
  let miner: NodeJS.Timeout | undefined;
  const startMining = () => {
    miner ??= setInterval(() => void anvil.mine(1).catch(() => undefined), opts.blockEveryMs ?? 200);
  };
  const stopMining = () => {
    clearInterval(miner);
    miner = undefined;
  };
  startMining();
  // One payment at a time: each takes the payer's next nonce, so none is ever signed twice.
  let payments: Promise<unknown> = Promise.resolve();

  return {
    anvil,
    tokenAddress,
    payerAddress,
    /** chain-watcher's settings for `chain` on this anvil, with `confirmations` blocks to confirm. */
    chainEnv: (chains: Chain[], confirmations = 2): Record<string, string> =>
      Object.fromEntries(
        chains.flatMap((c) => [
          [`RPC_URL_${c}`, anvil.url],
          [`STABLECOIN_${c}`, tokenAddress],
          [`CONFIRMATIONS_${c}`, String(confirmations)],
        ]),
      ),
    balanceOf: async (address: string): Promise<bigint> => token.getFunction("balanceOf")(address),
    /** Transactions `address` has sent (its nonce): counts every transfer a key ever signed and sent. */
    sentCount: (address: string) => anvil.provider.getTransactionCount(address, "latest"),
    /** The payer transfers `amount` tokens to `to` once and waits for it to be mined; the tx hash. */
    pay(to: string, amount: string): Promise<string> {
      const sent = payments.then(
        (): Promise<ContractTransactionResponse> =>
          (token.connect(payer) as Contract).getFunction("transfer")(to, parseUnits(amount, 6)),
      );
      payments = sent.catch(() => undefined);
      return sent.then(async (tx) => {
        const receipt = await tx.wait();
        if (!receipt) throw new Error(`payment ${tx.hash} was not mined`);
        return receipt.hash;
      });
    },
    startMining,
    stopMining,
    async stop() {
      stopMining();
      await anvil.stop();
    },
  };
}
export type EvmChain = Awaited<ReturnType<typeof startEvmChain>>;
