import { describe, expect, it } from "vitest";
import { filterBanks, loadCatalogue } from "./catalogue.ts";

const banks = loadCatalogue();

describe("bank catalogue", () => {
  it("ships the Nigerian NIP list with real codes", () => {
    const ng = banks.filter((b) => b.country === "NG");
    expect(ng.length).toBeGreaterThan(50);
    expect(filterBanks(banks, { code: "000013" })).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/Guaranty/) }),
    ]);
    expect(filterBanks(banks, { code: "000014" })[0]?.name).toMatch(/Access/);
    expect(filterBanks(banks, { code: "000016" })[0]?.name).toMatch(/First Bank/);
  });

  it("covers GH, KE, TZ and ZA", () => {
    for (const c of ["GH", "KE", "TZ", "ZA"]) expect(banks.some((b) => b.country === c)).toBe(true);
  });

  it("matches code exactly and name/country case-insensitively as substrings", () => {
    expect(filterBanks(banks, { code: "00001" })).toEqual([]);
    const byName = filterBanks(banks, { name: "guaranty" });
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.every((b) => b.name.toLowerCase().includes("guaranty"))).toBe(true);
    expect(filterBanks(banks, { country: "z" }).every((b) => b.country.toLowerCase().includes("z"))).toBe(
      true,
    );
    expect(filterBanks(banks, {})).toHaveLength(banks.length);
  });
});
