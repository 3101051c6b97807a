import { describe, expect, it } from "vitest";
import { createPriceFeed } from "../prices/price-feed.ts";
import { createSandboxSwapProvider } from "./swap-provider.ts";

const WETH = "0x4200000000000000000000000000000000000006";
const swaps = createSandboxSwapProvider(createPriceFeed(new Map([[`BASE:${WETH}`, "3000"]]), undefined));

describe("sandbox swap provider", () => {
  it("quotes the stablecoin needed from the price table, and nothing for unknown tokens", () => {
    expect(swaps.quote("BASE", WETH, "0.5")).toBe("1500");
    expect(swaps.quote("BASE", "0x0000000000000000000000000000000000000001", "1")).toBeUndefined();
  });

  it("signs one swap per request id, in the chain's transaction id format, and fills it at once", async () => {
    const req = { requestId: "r1", chain: "BASE" as const, mint: WETH, recipient: WETH, amount: "1" };
    const a = await swaps.prepareSwap(req);
    const b = await swaps.prepareSwap(req);
    expect(a.signature).toBe(b.signature);
    expect(a.signature).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await swaps.prepareSwap({ ...req, requestId: "r2" })).signature).not.toBe(a.signature);
    expect(await swaps.swapStatus("BASE", a.signature)).toBe("confirmed");
  });
});
