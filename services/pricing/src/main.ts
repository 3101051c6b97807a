import { runMain } from "@ramp/runtime";
import { loadPricingConfig } from "./config.ts";
import { startPricing } from "./service.ts";

runMain("pricing", () => startPricing(loadPricingConfig(process.env)));
