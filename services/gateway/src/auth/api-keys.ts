import { randomBytes } from "node:crypto";
import type { ChangeFeeds, ChangeKind, ConsoleListQuery } from "@ramp/contracts";
import type { ChangeFeed } from "@ramp/runtime";
import { hexKey, pageBy, pageById, sha256Hex } from "@ramp/runtime";
import type { Collection, Db } from "mongodb";
import { ObjectId, type WithId } from "mongodb";

/** Keys are stored as SHA-256 hashes: they are 256-bit random, so a slow hash buys nothing. */
interface ApiKeyDoc {
  _id: string; // sha256(key) hex
  keyId: string;
  businessId: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** The key's first 8 characters and a name, for the console (absent on keys issued before it). */
  prefix?: string;
  name?: string;
}

export interface BusinessDoc {
  _id: ObjectId;
  name: string;
  /** The fee is pricing's alone (its profile); the console asks pricing for it. */
  suspended?: boolean;
  createdAt: Date;
}

export type KeyRecord = WithId<ApiKeyDoc>;

export interface Caller {
  businessId: string;
  apiKeyId: string;
}

export type RevokeOutcome = "revoked" | "unknown";

export interface KeyStore {
  init(): Promise<void>;
  createBusiness(name: string): Promise<{ id: string }>;
  businessExists(id: string): Promise<boolean>;
  /** Returns the plaintext key once; only its hash is kept. */
  issueKey(businessId: string, name?: string): Promise<{ apiKey: string; apiKeyId: string }>;
  /** Revoking a revoked key is `revoked` again (and tells every replica again), so a retry is safe. */
  revoke(apiKey: string): Promise<RevokeOutcome>;
  /** The same by the key's id, within one business when `businessId` is given. */
  revokeById(keyId: string, businessId?: string): Promise<RevokeOutcome>;
  /** The key by id, within one business when `businessId` is given. */
  keyById(keyId: string, businessId?: string): Promise<KeyRecord | null>;
  /** Every key id of a business, revoked ones too (their deliveries stay in the log). */
  keyIdsOf(businessId: string): Promise<string[]>;
  listKeys(businessId: string, page: ConsoleListQuery): Promise<{ data: KeyRecord[]; nextCursor: string }>;
  authenticate(apiKey: string): Promise<Caller | null>;
  /** Whether the business is suspended, from memory kept exact by the change feed. */
  suspended(businessId: string): Promise<boolean>;
  business(id: string): Promise<BusinessDoc | null>;
  listBusinesses(page: ConsoleListQuery): Promise<{ data: BusinessDoc[]; nextCursor: string }>;
  updateBusiness(id: string, change: { suspended?: boolean }): Promise<BusinessDoc | null>;
}

export const hashKey = sha256Hex;

/** Enough for every live key of a large deployment; past it the oldest entries are read again. */
const CACHED_KEYS = 100_000;

export function createKeyStore(
  db: Db,
  changes: ChangeFeed<ChangeKind<typeof ChangeFeeds.gateway>>,
): KeyStore {
  const keys: Collection<ApiKeyDoc> = db.collection("api_keys");
  const businesses: Collection<BusinessDoc> = db.collection("businesses");
  // Every request authenticates: callers come from memory, unknown keys too (so a flood of bad keys
  // stays off the database). An issued or revoked key is dropped on every gateway replica through the
  // change feed, so a revoked key stops working everywhere as soon as the revoke is answered.
  const callers = changes.cache(
    "api-key",
    async (hash): Promise<Caller | null> => {
      const doc = await keys.findOne({ _id: hash, revokedAt: null });
      return doc ? { businessId: doc.businessId, apiKeyId: doc.keyId } : null;
    },
    CACHED_KEYS,
  );
  // Every keyed request asks; suspending tells every replica through the same feed.
  const suspensions = changes.cache(
    "business",
    async (id): Promise<boolean> => {
      const doc = ObjectId.isValid(id) ? await businesses.findOne({ _id: new ObjectId(id) }) : null;
      return doc?.suspended === true;
    },
    CACHED_KEYS,
  );

  return {
    async init() {
      await keys.createIndex({ keyId: 1 }, { unique: true });
      await keys.createIndex({ businessId: 1, keyId: -1 });
    },

    async createBusiness(name) {
      const _id = new ObjectId();
      await businesses.insertOne({ _id, name, createdAt: new Date() });
      return { id: _id.toHexString() };
    },

    async businessExists(id) {
      return (await businesses.countDocuments({ _id: new ObjectId(id) }, { limit: 1 })) > 0;
    },

    async issueKey(businessId, name = "") {
      const apiKey = `rk_${randomBytes(32).toString("base64url")}`;
      const keyId = new ObjectId().toHexString();
      const hash = hashKey(apiKey);
      const prefix = apiKey.slice(0, 8);
      await keys.insertOne({
        _id: hash,
        keyId,
        businessId,
        createdAt: new Date(),
        revokedAt: null,
        prefix,
        name,
      });
      await changes.changed("api-key", hash);
      return { apiKey, apiKeyId: keyId };
    },

    async revoke(apiKey) {
      const hash = hashKey(apiKey);
      await keys.updateOne({ _id: hash, revokedAt: null }, { $set: { revokedAt: new Date() } });
      if ((await keys.countDocuments({ _id: hash }, { limit: 1 })) === 0) return "unknown";
      await changes.changed("api-key", hash);
      return "revoked";
    },

    async revokeById(keyId, businessId) {
      const scope = { keyId, ...(businessId === undefined ? {} : { businessId }) };
      const doc = await keys.findOne(scope);
      if (!doc) return "unknown";
      await keys.updateOne({ ...scope, revokedAt: null }, { $set: { revokedAt: new Date() } });
      await changes.changed("api-key", doc._id);
      return "revoked";
    },

    keyById: (keyId, businessId) =>
      keys.findOne({ keyId, ...(businessId === undefined ? {} : { businessId }) }),

    async keyIdsOf(businessId) {
      const docs = await keys
        .find({ businessId }, { projection: { keyId: 1 } })
        .limit(1000)
        .toArray();
      return docs.map((d) => d.keyId);
    },

    listKeys: (businessId, page) => pageBy(keys, hexKey<ApiKeyDoc>("keyId"), { businessId }, page, (d) => d),

    authenticate(apiKey) {
      return callers.get(hashKey(apiKey));
    },

    suspended: (businessId) => suspensions.get(businessId),

    async business(id) {
      return ObjectId.isValid(id) ? businesses.findOne({ _id: new ObjectId(id) }) : null;
    },

    listBusinesses: (page) => pageById(businesses, {}, page, (d) => d),

    async updateBusiness(id, change) {
      const doc = await businesses.findOneAndUpdate(
        { _id: new ObjectId(id) },
        { $set: change },
        { returnDocument: "after" },
      );
      if (doc && change.suspended !== undefined) await changes.changed("business", id);
      return doc;
    },
  };
}
