import { CHAINS } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { resolveChainSettings } from "./chain-settings.ts";
import { custodyMnemonic, DEV_MNEMONIC, loadChainWatcherConfig } from "./config.ts";

const infra = { NATS_URL: "nats://x", MONGODB_URI: "mongodb://x" };
/** A valid BIP-39 phrase that is not the public dev mnemonic. */
const OWN_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

function errorOf(env: Record<string, string>): string {
  try {
    loadChainWatcherConfig({ ...infra, ...env });
  } catch (err) {
    return String(err);
  }
  return "";
}

describe("chain-watcher config", () => {
  it("defaults to the local network with the dev mnemonic and no RPC anywhere", () => {
    const config = loadChainWatcherConfig(infra);
    expect(config.CHAIN_NETWORK).toBe("local");
    expect(custodyMnemonic(config)).toBe(DEV_MNEMONIC);
    const settings = resolveChainSettings(config);
    expect(Object.values(settings).every((s) => s.rpcUrl === undefined)).toBe(true);
  });

  it("uses RPC_URL_<CHAIN> and per-chain confirmations", () => {
    const settings = resolveChainSettings(
      loadChainWatcherConfig({ ...infra, RPC_URL_BASE: "http://127.0.0.1:8545", CONFIRMATIONS_BASE: "2" }),
    );
    expect(settings.BASE).toMatchObject({ rpcUrl: "http://127.0.0.1:8545", confirmations: 2 });
    expect(settings.ETHEREUM.rpcUrl).toBeUndefined();
  });

  it("never echoes a malformed mnemonic", () => {
    const secret = "not a real mnemonic at all but secret words";
    let message = "";
    try {
      loadChainWatcherConfig({ ...infra, HD_MNEMONIC: secret });
    } catch (err) {
      message = String(err);
    }
    expect(message).toMatch(/HD_MNEMONIC/);
    expect(message).not.toContain("secret words");
  });

  it("in production mode refuses every sandbox chain, the dev mnemonic, the sandbox swaps and the default SOL price", () => {
    const message = errorOf({ RAMP_SANDBOX: "false", SWAP_PROVIDER: "sandbox" });
    for (const chain of CHAINS) expect(message).toMatch(new RegExp(`RPC_URL_${chain}: not set`));
    expect(message).toMatch(/HD_MNEMONIC: not set/);
    expect(message).toMatch(/SWAP_PROVIDER/);
    expect(message).toMatch(/SOL_USD_PRICE/);
    expect(errorOf({ RAMP_SANDBOX: "false", HD_MNEMONIC: DEV_MNEMONIC })).toMatch(
      /HD_MNEMONIC: is a published development value/,
    );
  });

  it("in production mode accepts real endpoints, switched-off chains and an operator's own seed", () => {
    const real = {
      ...infra,
      RAMP_SANDBOX: "false",
      HD_MNEMONIC: OWN_MNEMONIC,
      RPC_URL_BASE: "http://127.0.0.1:8545",
      ...Object.fromEntries(CHAINS.filter((c) => c !== "BASE").map((c) => [`RPC_URL_${c}`, "off"])),
    };
    const settings = resolveChainSettings(loadChainWatcherConfig(real));
    expect(settings.BASE.rpcUrl).toBe("http://127.0.0.1:8545");
    expect(settings.SOLANA).toMatchObject({ disabled: true, rpcUrl: undefined });
    // With Solana served, its rent needs the operator's SOL price.
    const withSolana = { ...real, RPC_URL_SOLANA: "http://127.0.0.1:8899" };
    expect(() => loadChainWatcherConfig(withSolana)).toThrow(/SOL_USD_PRICE/);
    expect(() => loadChainWatcherConfig({ ...withSolana, SOL_USD_PRICE: "140.5" })).not.toThrow();
  });

  it("refuses the public dev mnemonic on mainnet", () => {
    expect(() => loadChainWatcherConfig({ ...infra, CHAIN_NETWORK: "mainnet" })).toThrow(/dev mnemonic/);
  });
});
