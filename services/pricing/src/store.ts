import type { Currency, RateHistoryQuery } from "@ramp/contracts";
import { pageById } from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import type { MarketRate } from "./rates.ts";

interface MarketRateDoc extends Omit<MarketRate, "currency"> {
  _id: Currency;
}
/** Every set and removal of a market rate, kept for the console's history (never rewritten). */
interface RateChangeDoc {
  _id: ObjectId;
  currency: Currency;
  change: "set" | "delete";
  onRamp: string | null;
  offRamp: string | null;
  at: Date;
}
interface ProfileDoc {
  _id: string;
  feeBps: number;
}

export function createPricingStore(db: Db) {
  const rates = db.collection<MarketRateDoc>("market_rates");
  const profiles = db.collection<ProfileDoc>("profiles");
  const history = db.collection<RateChangeDoc>("market_rate_history");
  const record = (
    currency: Currency,
    change: RateChangeDoc["change"],
    onRamp: string | null,
    offRamp: string | null,
  ) => history.insertOne({ _id: new ObjectId(), currency, change, onRamp, offRamp, at: new Date() });
  return {
    async init() {
      await history.createIndex({ currency: 1, _id: -1 });
    },
    history: ({ currency, ...page }: RateHistoryQuery) =>
      pageById(history, currency ? { currency } : {}, page, (d) => ({
        id: d._id.toHexString(),
        currency: d.currency,
        change: d.change,
        onRamp: d.onRamp,
        offRamp: d.offRamp,
        at: d.at.toISOString(),
      })),
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
      await record(currency, "set", onRamp, offRamp);
      return { currency, ...doc };
    },
    async deleteMarketRate(currency: Currency): Promise<void> {
      const { deletedCount } = await rates.deleteOne({ _id: currency });
      if (deletedCount > 0) await record(currency, "delete", null, null);
    },
    async feeBps(businessId: string): Promise<number> {
      return (await profiles.findOne({ _id: businessId }))?.feeBps ?? 0;
    },
    /** Each business's fee, 0 for one never set. */
    async feesOf(businessIds: string[]): Promise<Record<string, number>> {
      const set = await profiles.find({ _id: { $in: businessIds } }).toArray();
      const fees: Record<string, number> = Object.fromEntries(businessIds.map((id) => [id, 0]));
      for (const p of set) fees[p._id] = p.feeBps;
      return fees;
    },
    async setFeeBps(businessId: string, feeBps: number): Promise<void> {
      await profiles.updateOne({ _id: businessId }, { $set: { feeBps } }, { upsert: true });
    },
  };
}
export type PricingStore = ReturnType<typeof createPricingStore>;
