import { createHash, randomBytes } from "node:crypto";
import type { Collection, Db } from "mongodb";
import { ObjectId } from "mongodb";

/** Keys are stored as SHA-256 hashes: they are 256-bit random, so a slow hash buys nothing. */
interface ApiKeyDoc {
  _id: string; // sha256(key) hex
  keyId: string;
  businessId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

interface BusinessDoc {
  _id: ObjectId;
  name: string;
  feeBps: number;
  createdAt: Date;
}

export interface Caller {
  businessId: string;
  apiKeyId: string;
}

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

export function createKeyStore(db: Db, cacheSeconds: number) {
  const keys: Collection<ApiKeyDoc> = db.collection("api_keys");
  const businesses: Collection<BusinessDoc> = db.collection("businesses");
  const cache = new Map<string, { caller: Caller | null; until: number }>();

  return {
    async init() {
      await keys.createIndex({ keyId: 1 }, { unique: true });
      await keys.createIndex({ businessId: 1 });
    },

    async createBusiness(name: string, feeBps: number): Promise<{ id: string }> {
      const _id = new ObjectId();
      await businesses.insertOne({ _id, name, feeBps, createdAt: new Date() });
      return { id: _id.toHexString() };
    },

    async businessExists(id: string): Promise<boolean> {
      return (await businesses.countDocuments({ _id: new ObjectId(id) }, { limit: 1 })) > 0;
    },

    /** Returns the plaintext key once; only its hash is kept. */
    async issueKey(businessId: string): Promise<{ apiKey: string; apiKeyId: string }> {
      const apiKey = `rk_${randomBytes(32).toString("base64url")}`;
      const keyId = new ObjectId().toHexString();
      await keys.insertOne({
        _id: hashKey(apiKey),
        keyId,
        businessId,
        createdAt: new Date(),
        revokedAt: null,
      });
      return { apiKey, apiKeyId: keyId };
    },

    /** Cached both ways, so a flood of bad keys does not reach the database either. */
    async authenticate(apiKey: string): Promise<Caller | null> {
      const hash = hashKey(apiKey);
      const hit = cache.get(hash);
      if (hit && hit.until > Date.now()) return hit.caller;
      const doc = await keys.findOne({ _id: hash, revokedAt: null });
      const caller = doc ? { businessId: doc.businessId, apiKeyId: doc.keyId } : null;
      if (cache.size > 10_000) cache.clear();
      cache.set(hash, { caller, until: Date.now() + cacheSeconds * 1000 });
      return caller;
    },
  };
}
export type KeyStore = ReturnType<typeof createKeyStore>;
