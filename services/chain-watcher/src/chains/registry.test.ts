import { createLogger } from "@ramp/runtime";
import { describe, expect, it } from "vitest";
import { resolveChainSettings } from "../chain-settings.ts";
import { DEV_MNEMONIC, loadChainWatcherConfig } from "../config.ts";
import { buildChainRegistry } from "./registry.ts";

const TON_USDT = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs";

describe("chain registry with RPC endpoints", () => {
  // Building adapters does no I/O, so unreachable endpoints are enough here.
  const build = () => {
    const config = loadChainWatcherConfig({
      NATS_URL: "nats://127.0.0.1:1",
      MONGODB_URI: "mongodb://127.0.0.1:1",
      RPC_URL_SOLANA: "http://127.0.0.1:1",
      RPC_URL_TON: "http://127.0.0.1:1/jsonRPC",
      STABLECOIN_TON: TON_USDT,
      STABLECOIN_DECIMALS_TON: "6",
    });
    return buildChainRegistry(
      config,
      resolveChainSettings(config),
      DEV_MNEMONIC,
      createLogger("test", "silent"),
    );
  };

  it("runs Solana and TON on their real adapters", async () => {
    const registry = await build();
    expect(registry.get("SOLANA").mode).toBe("rpc");
    expect(registry.get("TON").mode).toBe("rpc");
  });

  it("hands TON its stablecoin with the configured decimals (jetton metadata is often off-chain)", async () => {
    const registry = await build();
    // Answered from configuration: the endpoint is never asked.
    expect(await registry.adapter("TON").tokenDecimals(TON_USDT)).toBe(6);
  });
});
