import { BaseConfig, loadConfig } from "@ramp/runtime";
import type { z } from "zod";

export const BankingConfig = BaseConfig.extend({});
export type BankingConfig = z.infer<typeof BankingConfig>;
export const loadBankingConfig = (env: Record<string, string | undefined>) => loadConfig(BankingConfig, env);
