import { ChangeFeeds, type Currency, notFound, Rpc } from "@ramp/contracts";
import { bootService, openChangeFeed, serveRpc } from "@ramp/runtime";
import type { PricingConfig } from "./config.ts";
import { businessRates } from "./rates.ts";
import { createPricingStore } from "./store.ts";

const QUEUE = "pricing";

export async function startPricing(config: PricingConfig) {
  return bootService("pricing", config, async ({ nc, db, log }) => {
    const store = createPricingStore(db);
    await store.init();
    // Rates are read on every quote and rate request: served from memory, dropped on every replica the
    // moment any replica changes one (the change feed), so no replica ever answers a replaced rate.
    const changes = await openChangeFeed(nc, ChangeFeeds.pricing, log, config.NATS_STREAM_REPLICAS);
    const marketRates = changes.cache("market-rate", (currency: Currency) => store.getMarketRate(currency));
    const feeBps = changes.cache("profile", (businessId) => store.feeBps(businessId));
    return [
      changes,
      serveRpc(nc, Rpc.ratesGet, QUEUE, log, async ({ businessId, currency, fresh }) => {
        const market = await (fresh ? store.getMarketRate(currency) : marketRates.get(currency));
        if (!market) throw notFound("Rate not found");
        return businessRates(market, await (fresh ? store.feeBps(businessId) : feeBps.get(businessId)));
      }),
      serveRpc(nc, Rpc.marketRateSet, QUEUE, log, async ({ currency, onRamp, offRamp }, ctx) => {
        const market = await store.setMarketRate(currency, onRamp, offRamp);
        await changes.changed("market-rate", currency);
        ctx.log.info({ currency, onRamp, offRamp }, "market rate set");
        return businessRates(market, 0);
      }),
      serveRpc(nc, Rpc.marketRateDelete, QUEUE, log, async ({ currency }, ctx) => {
        await store.deleteMarketRate(currency);
        await changes.changed("market-rate", currency);
        ctx.log.info({ currency }, "market rate removed");
        return { ok: true as const };
      }),
      serveRpc(nc, Rpc.marketRateGet, QUEUE, log, async ({ currency }) => {
        const market = await store.getMarketRate(currency);
        if (!market) throw notFound("Rate not found");
        return businessRates(market, 0);
      }),
      serveRpc(nc, Rpc.marketRateHistory, QUEUE, log, (query) => store.history(query)),
      serveRpc(nc, Rpc.profileSet, QUEUE, log, async ({ businessId, feeBps: bps }) => {
        await store.setFeeBps(businessId, bps);
        await changes.changed("profile", businessId);
        return { ok: true as const };
      }),
      // From the database, not this replica's memory: the console reads back a fee it has just set,
      // and the replica answering may not have seen that change on the feed yet.
      serveRpc(nc, Rpc.profilesGet, QUEUE, log, async ({ businessIds }) => ({
        feeBps: await store.feesOf(businessIds),
      })),
    ];
  });
}
