import { describe, expect, it } from "vitest";
import { formatUnits, parseUnits } from "./units.ts";

describe("token units", () => {
  it("formats base units exactly, without trailing zeros", () => {
    expect(formatUnits(25_500_000n, 6)).toBe("25.5");
    expect(formatUnits(100_000_000n, 6)).toBe("100");
    expect(formatUnits(1n, 6)).toBe("0.000001");
    expect(formatUnits(0n, 6)).toBe("0");
    expect(formatUnits(2_039_280n, 9)).toBe("0.00203928");
    expect(formatUnits(123n, 0)).toBe("123");
    expect(formatUnits(-1_500_000n, 6)).toBe("-1.5");
    // Beyond float precision: 2^64 - 1 base units of an 18-decimal token.
    expect(formatUnits(18_446_744_073_709_551_615n, 18)).toBe("18.446744073709551615");
  });

  it("parses decimal strings and refuses extra precision or junk", () => {
    expect(parseUnits("12.345678", 6)).toBe(12_345_678n);
    expect(parseUnits("1", 6)).toBe(1_000_000n);
    expect(parseUnits("1.500000000", 6)).toBe(1_500_000n);
    expect(parseUnits("0.1", 9)).toBe(100_000_000n);
    expect(() => parseUnits("1.0000001", 6)).toThrow(/more than 6 decimals/);
    for (const bad of ["", "-1", "1e6", "1.", ".5", "0x10", "1,5"])
      expect(() => parseUnits(bad, 6)).toThrow();
  });
});
