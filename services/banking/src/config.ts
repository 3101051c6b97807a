import { BaseConfig, defaultSecretPart, envInt, loadConfig, type SandboxPart } from "@ramp/runtime";
import { z } from "zod";
import { BANK_RAIL_NAMES, IDENTITY_PROVIDER_NAMES, sandboxAdapters } from "./adapters.ts";

/** Public by design: it only keys sandbox KYC records, which is why production refuses it. */
const SANDBOX_KYC_PEPPER = "sandbox-pepper";

export const BankingConfig = BaseConfig.extend({
  /** Which BankRail / IdentityProvider implementation to use (see adapters.ts). */
  BANK_RAIL: z.enum(BANK_RAIL_NAMES).default("sandbox"),
  IDENTITY_PROVIDER: z.enum(IDENTITY_PROVIDER_NAMES).default("sandbox"),
  NAME_ENQUIRY_TIMEOUT_MS: envInt(20_000),
  /** Pepper for hashing BVNs; KYC records are found by hash, the BVN itself is never stored. */
  KYC_PEPPER: z.string().optional(),
  VIRTUAL_ACCOUNT_HOLDER: z.string().default("RAMP CHECKOUT"),
  /**
   * A payout the rail fails with a timeout or a 5xx is asked again, up to PAYOUT_ATTEMPTS asks in all,
   * waiting PAYOUT_RETRY_BASE_MS and doubling; only a refusal or the last failure ends the order in ERROR.
   * The defaults keep the worst case (4 × 10 s + 1 + 2 + 4 s) inside the command's 60 s ack wait.
   */
  PAYOUT_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(4),
  PAYOUT_RETRY_BASE_MS: envInt(1_000),
  PAYOUT_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
});
export type BankingConfig = z.infer<typeof BankingConfig>;

/** Everything banking would run on that production mode refuses. */
export function bankingSandboxParts(config: BankingConfig): SandboxPart[] {
  return [
    ...sandboxAdapters(config),
    ...defaultSecretPart("KYC_PEPPER", config.KYC_PEPPER, [SANDBOX_KYC_PEPPER]),
  ];
}

export const loadBankingConfig = (env: Record<string, string | undefined>) =>
  loadConfig(BankingConfig, env, bankingSandboxParts);

/** The pepper in force; the sandbox default keeps hashes of existing sandbox records stable. */
export function kycPepper(config: BankingConfig): string {
  return config.KYC_PEPPER || SANDBOX_KYC_PEPPER;
}
