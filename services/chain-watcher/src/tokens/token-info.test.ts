import type { Chain } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { resolveChainSettings } from "../chain-settings.ts";
import { createSandboxAdapter } from "../chains/sandbox/sandbox-adapter.ts";
import { loadChainWatcherConfig } from "../config.ts";
import { createPriceFeed, parsePriceTable } from "../prices/price-feed.ts";
import { createSandboxSwapProvider } from "../swaps/swap-provider.ts";
import { createDescribeToken, createTokenInfo, isSettlementStablecoin } from "./token-info.ts";

const env = { NATS_URL: "nats://x", MONGODB_URI: "mongodb://x" };
const settings = resolveChainSettings(loadChainWatcherConfig(env));
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

describe("isSettlementStablecoin", () => {
  it("compares EVM addresses whatever their case or checksum", () => {
    expect(isSettlementStablecoin(settings.BASE, BASE_USDC)).toBe(true);
    expect(isSettlementStablecoin(settings.BASE, BASE_USDC.toLowerCase())).toBe(true);
    expect(isSettlementStablecoin(settings.BASE, `0x${BASE_USDC.slice(2).toUpperCase()}`)).toBe(true);
    expect(isSettlementStablecoin(settings.BASE, "0x4200000000000000000000000000000000000006")).toBe(false);
  });

  it("compares TON addresses across friendly and raw forms", () => {
    expect(isSettlementStablecoin(settings.TON, "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs")).toBe(
      true,
    );
    expect(
      isSettlementStablecoin(
        settings.TON,
        "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe",
      ),
    ).toBe(true);
    expect(isSettlementStablecoin(settings.TON, "TON")).toBe(false);
  });

  it("honours a STABLECOIN_<CHAIN> override", () => {
    const token = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
    const s = resolveChainSettings(loadChainWatcherConfig({ ...env, STABLECOIN_BASE: token.toLowerCase() }));
    expect(isSettlementStablecoin(s.BASE, token)).toBe(true);
    expect(isSettlementStablecoin(s.BASE, BASE_USDC)).toBe(false);
  });
});

describe("tokenInfo on the sandbox adapter", () => {
  const adapter = (chain: Chain) =>
    createSandboxAdapter({ chain, derive: () => "", stablecoin: settings[chain].stablecoin });
  const tokenInfo = createTokenInfo({
    settings: (chain) => settings[chain],
    adapter,
    swaps: createSandboxSwapProvider(
      createPriceFeed(parsePriceTable("BASE:0x4200000000000000000000000000000000000006=3000.5"), "1"),
    ),
    solUsdPrice: "150",
  });

  it("answers the stablecoin with price 1, its decimals and no setup cost on EVM", async () => {
    const info = await tokenInfo({ chain: "BASE", mint: BASE_USDC.toLowerCase(), recipient: BASE_USDC });
    expect(info).toEqual({ decimals: 6, stablecoin: true, usdPrice: "1", setupCostUsd: "0" });
  });

  it("prices other tokens from the table, else the sandbox default", async () => {
    const weth = await tokenInfo({ chain: "BASE", mint: "0x4200000000000000000000000000000000000006" });
    expect(weth).toMatchObject({ decimals: 18, stablecoin: false, usdPrice: "3000.5" });
    const other = await tokenInfo({ chain: "BASE", mint: "0x5FbDB2315678afecb367f032d93F642f64180aa3" });
    expect(other.usdPrice).toBe("1");
  });

  it("has no price for a token no swap provider can buy (503)", async () => {
    const strict = createTokenInfo({
      settings: (chain) => settings[chain],
      adapter,
      swaps: undefined,
      solUsdPrice: "150",
    });
    await expect(
      strict({ chain: "BASE", mint: "0x5FbDB2315678afecb367f032d93F642f64180aa3" }),
    ).rejects.toMatchObject({ code: "UNAVAILABLE" });
  });

  it("rejects a mint of another chain's format (400)", async () => {
    await expect(
      tokenInfo({ chain: "BASE", mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});

describe("describeToken, what every deposit event carries", () => {
  const describeToken = createDescribeToken({
    settings: (chain) => settings[chain],
    adapter: (chain: Chain) =>
      createSandboxAdapter({ chain, derive: () => "", stablecoin: settings[chain].stablecoin }),
    swaps: undefined,
  });

  it("describes the stablecoin at 1 USD, and a token nothing prices with a null price rather than failing", async () => {
    expect(await describeToken("BASE", BASE_USDC)).toEqual({ decimals: 6, stablecoin: true, usdPrice: "1" });
    expect(await describeToken("BASE", "0x5FbDB2315678afecb367f032d93F642f64180aa3")).toEqual({
      decimals: 18,
      stablecoin: false,
      usdPrice: null,
    });
  });
});
