import { describe, expect, it } from "vitest";
import { resolveChainSettings } from "./chain-settings.ts";
import { custodyMnemonic, DEV_MNEMONIC, loadChainWatcherConfig } from "./config.ts";

const infra = { NATS_URL: "nats://x", MONGODB_URI: "mongodb://x" };

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

  it("requires a mnemonic outside the sandbox and never echoes one", () => {
    expect(() => loadChainWatcherConfig({ ...infra, RAMP_SANDBOX: "false" })).toThrow(/HD_MNEMONIC/);
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

  it("refuses the public dev mnemonic on mainnet", () => {
    expect(() => loadChainWatcherConfig({ ...infra, CHAIN_NETWORK: "mainnet" })).toThrow(/dev mnemonic/);
  });
});
