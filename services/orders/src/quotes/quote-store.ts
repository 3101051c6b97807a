import type { Chain, Currency, TransactionType } from "@ramp/contracts";
import type { Claims } from "@ramp/runtime";
import { type Db, ObjectId } from "mongodb";
import type { Pricing } from "../pricing/price-order.ts";

/** A locked rate and its amounts, exactly as an order created from it stores them. */
export interface QuoteDoc extends Pricing {
  _id: ObjectId;
  businessId: string;
  type: TransactionType;
  currency: Currency;
  chain: Chain;
  /** As the client sent it (the reply echoes it); `mintKey` is the normalised spelling orders compare. */
  mint: string;
  mintKey: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface QuoteStore {
  insert(doc: QuoteDoc): Promise<void>;
  getForBusiness(id: string, businessId: string): Promise<QuoteDoc | null>;
  /**
   * Takes the quote for one order; false when another order already has it. Use-once must hold when
   * two orders race for it, so this is a claim (an insert on a unique key), never a read-then-update,
   * which FerretDB does not make atomic.
   */
  claim(id: ObjectId, orderId: string): Promise<boolean>;
  /** Gives the quote back when the order that took it could not be created. */
  release(id: ObjectId, orderId: string): Promise<void>;
}

export function createQuoteStore(deps: { db: Db; claims: Claims }): QuoteStore {
  const col = deps.db.collection<QuoteDoc>("quotes");
  const key = (id: ObjectId) => `quote:${id.toHexString()}`;
  return {
    async insert(doc) {
      await col.insertOne(doc);
    },
    async getForBusiness(id, businessId) {
      if (!ObjectId.isValid(id) || !/^[0-9a-f]{24}$/i.test(id)) return null;
      const doc = await col.findOne({ _id: new ObjectId(id) });
      return doc && doc.businessId === businessId ? doc : null;
    },
    claim: (id, orderId) => deps.claims.claim(key(id), orderId),
    release: (id, orderId) => deps.claims.release(key(id), orderId),
  };
}
