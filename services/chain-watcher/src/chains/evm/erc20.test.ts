import { describe, expect, it } from "vitest";
import { addressTopic, formatTokenAmount, parseTokenAmount } from "./erc20.ts";
import { nextRange } from "./log-scan.ts";

describe("token amounts", () => {
  it("formats base units with the token's decimals, whole amounts without a fraction", () => {
    expect(formatTokenAmount(1_000_000n, 6)).toBe("1");
    expect(formatTokenAmount(1_500_000n, 6)).toBe("1.5");
    expect(formatTokenAmount(1n, 6)).toBe("0.000001");
    expect(formatTokenAmount(123_456_789_000_000_000_000n, 18)).toBe("123.456789");
    expect(formatTokenAmount(0n, 6)).toBe("0");
  });

  it("parses decimal strings exactly and refuses excess precision", () => {
    expect(parseTokenAmount("12.345678", 6)).toBe(12_345_678n);
    expect(parseTokenAmount("0.1", 18)).toBe(100_000_000_000_000_000n);
    expect(() => parseTokenAmount("0.0000001", 6)).toThrow();
  });

  it("pads an address into a lowercase topic", () => {
    expect(addressTopic("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).toBe(
      "0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    );
  });
});

describe("nextRange", () => {
  it("scans from after the cursor up to the newest block with enough confirmations", () => {
    // latest 100, 2 confirmations → block 99 has 2, block 100 has 1.
    expect(nextRange("90", 100, 2, 1000, 1000)).toEqual({ from: 91, to: 99 });
  });

  it("bounds the range by the chunk size", () => {
    expect(nextRange("0", 10_000, 1, 500, 1000)).toEqual({ from: 1, to: 500 });
  });

  it("has nothing to scan until a new block is confirmed", () => {
    expect(nextRange("99", 100, 2, 1000, 1000)).toBeUndefined();
  });

  it("starts a lookback behind the safe head without a cursor", () => {
    expect(nextRange(null, 5000, 1, 2000, 1000)).toEqual({ from: 4001, to: 5000 });
    expect(nextRange(null, 3, 2, 2000, 1000)).toEqual({ from: 0, to: 2 });
  });
});
