export { loadPricingConfig, PricingConfig } from "./config.ts";
export { startPricing } from "./service.ts";
