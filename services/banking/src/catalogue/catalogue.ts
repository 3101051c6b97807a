import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BankDto, BankQuery } from "@ramp/contracts";

export const CATALOGUE_FILE = join(import.meta.dirname, "../../data/banks.json");

export function loadCatalogue(file = CATALOGUE_FILE): BankDto[] {
  return JSON.parse(readFileSync(file, "utf8")) as BankDto[];
}

/** Bank filters: `code` exact; `name` and `country` case-insensitive substrings; no filter → everything. */
export function filterBanks(banks: readonly BankDto[], q: BankQuery): BankDto[] {
  const name = q.name?.toLowerCase();
  const country = q.country?.toLowerCase();
  return banks.filter(
    (b) =>
      (q.code === undefined || b.code === q.code) &&
      (name === undefined || b.name.toLowerCase().includes(name)) &&
      (country === undefined || b.country.toLowerCase().includes(country)),
  );
}
