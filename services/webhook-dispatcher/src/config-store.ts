import type { UpdateWebhookRequest, WebhookConfigDto } from "@ramp/contracts";
import { isDuplicateKey } from "@ramp/runtime";
import type { Db } from "mongodb";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "./secrets.ts";

interface WebhookConfigDoc {
  /** The API key id: every key has its own URLs and secret. */
  _id: string;
  rampWebhookURL: string | null;
  paymentWebhookURL: string | null;
  /** Never the plaintext: AES-256-GCM, see secrets.ts. */
  secretEnc: string;
  createdAt: Date;
  updatedAt: Date;
}

type UrlField = "rampWebhookURL" | "paymentWebhookURL";
const URL_FIELDS: UrlField[] = ["rampWebhookURL", "paymentWebhookURL"];

export function createConfigStore(db: Db, key: Buffer) {
  const configs = db.collection<WebhookConfigDoc>("webhook_configs");
  // Secrets never change once issued, so decrypting each one once per process is enough.
  const secretCache = new Map<string, string>();

  const toDto = (doc: WebhookConfigDoc): WebhookConfigDto => ({
    // `?? null`: some MongoDB-wire backends drop null fields written by $setOnInsert.
    rampWebhookURL: doc.rampWebhookURL ?? null,
    paymentWebhookURL: doc.paymentWebhookURL ?? null,
    webhookSecret: secretOf(doc),
  });

  function secretOf(doc: WebhookConfigDoc): string {
    let secret = secretCache.get(doc._id);
    if (!secret) {
      secret = decryptSecret(key, doc.secretEnc);
      if (secretCache.size > 10_000) secretCache.clear();
      secretCache.set(doc._id, secret);
    }
    return secret;
  }

  /**
   * One atomic upsert: the secret is written only on insert, so concurrent first reads all end up
   * with the same secret. Two racing upserts can still collide on _id; the loser simply re-reads.
   */
  async function upsert(apiKeyId: string, set: Partial<Record<UrlField, string | null>>) {
    const now = new Date();
    const onInsert: Partial<WebhookConfigDoc> = { secretEnc: encryptSecret(key, generateWebhookSecret()) };
    onInsert.createdAt = now;
    for (const f of URL_FIELDS) if (!(f in set)) onInsert[f] = null;
    for (let i = 0; ; i++) {
      try {
        const doc = await configs.findOneAndUpdate(
          { _id: apiKeyId },
          { $set: { ...set, updatedAt: now }, $setOnInsert: onInsert },
          { upsert: true, returnDocument: "after" },
        );
        if (!doc) throw new Error("upsert returned no document");
        return doc;
      } catch (err) {
        if (!isDuplicateKey(err) || i >= 2) throw err;
      }
    }
  }

  return {
    /** The key's config, creating its secret on first read or use. */
    async get(apiKeyId: string): Promise<WebhookConfigDto> {
      const existing = await configs.findOne({ _id: apiKeyId });
      return toDto(existing ?? (await upsert(apiKeyId, {})));
    },
    /** The key's signing secret; secrets never change, so after the first read it is served from memory. */
    async secret(apiKeyId: string): Promise<string> {
      return secretCache.get(apiKeyId) ?? (await this.get(apiKeyId)).webhookSecret;
    },
    /** Only fields sent change; "" clears a field (stored as null) and stops those deliveries. */
    async update(apiKeyId: string, body: UpdateWebhookRequest): Promise<WebhookConfigDto> {
      const set: Partial<Record<UrlField, string | null>> = {};
      for (const f of URL_FIELDS) {
        const v = body[f];
        if (v !== undefined) set[f] = v === "" ? null : v;
      }
      return toDto(await upsert(apiKeyId, set));
    },
  };
}
export type ConfigStore = ReturnType<typeof createConfigStore>;
