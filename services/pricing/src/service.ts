import { notFound, Rpc } from "@ramp/contracts";
import { bootService, serveRpc } from "@ramp/runtime";
import type { PricingConfig } from "./config.ts";
import { businessRates } from "./rates.ts";
import { createPricingStore } from "./store.ts";

const QUEUE = "pricing";

export async function startPricing(config: PricingConfig) {
  return bootService("pricing", config, async ({ nc, db, log }) => {
    const store = createPricingStore(db);
    return [
      serveRpc(nc, Rpc.ratesGet, QUEUE, log, async ({ businessId, currency }) => {
        const market = await store.getMarketRate(currency);
        if (!market) throw notFound("Rate not found");
        return businessRates(market, await store.feeBps(businessId));
      }),
      serveRpc(nc, Rpc.marketRateSet, QUEUE, log, async ({ currency, onRamp, offRamp }, ctx) => {
        const market = await store.setMarketRate(currency, onRamp, offRamp);
        ctx.log.info({ currency, onRamp, offRamp }, "market rate set");
        return businessRates(market, 0);
      }),
      serveRpc(nc, Rpc.marketRateDelete, QUEUE, log, async ({ currency }, ctx) => {
        await store.deleteMarketRate(currency);
        ctx.log.info({ currency }, "market rate removed");
        return { ok: true as const };
      }),
      serveRpc(nc, Rpc.profileSet, QUEUE, log, async ({ businessId, feeBps }) => {
        await store.setFeeBps(businessId, feeBps);
        return { ok: true as const };
      }),
    ];
  });
}
