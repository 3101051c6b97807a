import { BaseConfig, envInt, loadConfig } from "@ramp/runtime";
import { z } from "zod";

export const BankingConfig = BaseConfig.extend({
  /** Which BankRail / IdentityProvider implementation to use; only the sandbox ships today. */
  BANK_RAIL: z.enum(["sandbox"]).default("sandbox"),
  IDENTITY_PROVIDER: z.enum(["sandbox"]).default("sandbox"),
  NAME_ENQUIRY_TIMEOUT_MS: envInt(20_000),
  /** Pepper for hashing BVNs; KYC records are found by hash, the BVN itself is never stored. */
  KYC_PEPPER: z.string().default("sandbox-pepper"),
  VIRTUAL_ACCOUNT_HOLDER: z.string().default("RAMP CHECKOUT"),
});
export type BankingConfig = z.infer<typeof BankingConfig>;
export const loadBankingConfig = (env: Record<string, string | undefined>) => loadConfig(BankingConfig, env);
