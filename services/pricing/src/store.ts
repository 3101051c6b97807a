import type { Currency } from "@ramp/contracts";
import { type Db, ObjectId } from "mongodb";
import type { MarketRate } from "./rates.ts";

interface MarketRateDoc extends Omit<MarketRate, "currency"> {
  _id: Currency;
}
interface ProfileDoc {
  _id: string;
  feeBps: number;
}

export function createPricingStore(db: Db) {
  const rates = db.collection<MarketRateDoc>("market_rates");
  const profiles = db.collection<ProfileDoc>("profiles");
  return {
    async getMarketRate(currency: Currency): Promise<MarketRate | null> {
      const doc = await rates.findOne({ _id: currency });
      if (!doc) return null;
      const { _id, ...rest } = doc;
      return { currency: _id, ...rest };
    },
    /** A new rate gets new ids and a new createdAt: quotes name the rate they were priced on. */
    async setMarketRate(currency: Currency, onRamp: string, offRamp: string): Promise<MarketRate> {
      const doc: MarketRateDoc = {
        _id: currency,
        onRamp,
        offRamp,
        onRampId: new ObjectId().toHexString(),
        offRampId: new ObjectId().toHexString(),
        createdAt: new Date(),
      };
      await rates.replaceOne({ _id: currency }, doc, { upsert: true });
      return { currency, ...doc };
    },
    async deleteMarketRate(currency: Currency): Promise<void> {
      await rates.deleteOne({ _id: currency });
    },
    async feeBps(businessId: string): Promise<number> {
      return (await profiles.findOne({ _id: businessId }))?.feeBps ?? 0;
    },
    async setFeeBps(businessId: string, feeBps: number): Promise<void> {
      await profiles.updateOne({ _id: businessId }, { $set: { feeBps } }, { upsert: true });
    },
  };
}
export type PricingStore = ReturnType<typeof createPricingStore>;
