import { BaseConfig, loadConfig } from "@ramp/runtime";
import type { z } from "zod";

export const PricingConfig = BaseConfig.extend({});
export type PricingConfig = z.infer<typeof PricingConfig>;
export const loadPricingConfig = (env: Record<string, string | undefined>) => loadConfig(PricingConfig, env);
