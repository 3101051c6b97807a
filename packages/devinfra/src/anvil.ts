import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ContractFactory, HDNodeWallet, JsonRpcProvider, type Signer, Wallet } from "ethers";
import solc from "solc";
import { freePort, waitForPort } from "./processes.ts";

const require = createRequire(import.meta.url);

/** The platform binary the @foundry-rs/anvil wrapper would run; spawned directly so a kill reaches it. */
function anvilBinary(): { cmd: string; args: string[] } {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const wrapper = require.resolve("@foundry-rs/anvil/package.json");
  try {
    const pkg = createRequire(wrapper).resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const bin = join(dirname(pkg), "bin", "anvil");
    if (existsSync(bin)) return { cmd: bin, args: [] };
  } catch {
    // fall through to the wrapper
  }
  return { cmd: process.execPath, args: [join(dirname(wrapper), "bin.mjs")] };
}

/** Funds the test's own accounts; deliberately not the service's custody mnemonic. */
export const ANVIL_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

export interface Anvil {
  url: string;
  provider: JsonRpcProvider;
  /** Funded account `i` of ANVIL_MNEMONIC. */
  account(i: number): Wallet;
  mine(blocks?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startAnvil(): Promise<Anvil> {
  const port = await freePort();
  const { cmd, args } = anvilBinary();
  const child: ChildProcess = spawn(
    cmd,
    [...args, "--port", String(port), "--host", "127.0.0.1", "--mnemonic", ANVIL_MNEMONIC, "--silent"],
    { stdio: "ignore" },
  );
  await waitForPort(port, 30_000);
  const url = `http://127.0.0.1:${port}`;
  const provider = new JsonRpcProvider(url, undefined, {
    staticNetwork: true,
    polling: true,
    pollingInterval: 100,
  });
  return {
    url,
    provider,
    account: (i) => {
      const hd = HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);
      return new Wallet(hd.privateKey, provider);
    },
    async mine(blocks = 1) {
      await provider.send("anvil_mine", [`0x${blocks.toString(16)}`]);
    },
    async stop() {
      provider.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 3_000).unref();
      });
    },
  };
}

/** The slice of TestUSDC's ABI tests call. */
export const TEST_USDC_ABI = [
  "function transfer(address to, uint256 value) returns (bool)",
  "function mint(address to, uint256 value)",
  "function mintMany(address[] to, uint256 value)",
  "function balanceOf(address owner) view returns (uint256)",
];

/** Compiles the TestUSDC fixture with solc-js (offline) and deploys it. */
export async function deployTestUsdc(deployer: Signer) {
  const source = readFileSync(fileURLToPath(new URL("../fixtures/TestUSDC.sol", import.meta.url)), "utf8");
  const input = {
    language: "Solidity",
    sources: { "TestUSDC.sol": { content: source } },
    settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc: ${JSON.stringify(errors)}`);
  const artifact = output.contracts["TestUSDC.sol"].TestUSDC;
  const factory = new ContractFactory(artifact.abi, `0x${artifact.evm.bytecode.object}`, deployer);
  const contract = await factory.deploy();
  await contract.waitForDeployment();
  return contract;
}
