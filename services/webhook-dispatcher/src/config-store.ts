import type { UpdateWebhookRequest, WebhookConfigDto } from "@ramp/contracts";
import { decryptSecret, encryptSecret, isDuplicateKey } from "@ramp/runtime";
import type { Db } from "mongodb";
import { generateWebhookSecret } from "./secrets.ts";

interface WebhookConfigDoc {
  /** The API key id: every key has its own URLs and secret. */
  _id: string;
  rampWebhookURL: string | null;
  paymentWebhookURL: string | null;
  /** Never the plaintext: AES-256-GCM, see secrets.ts. */
  secretEnc: string;
  /** During a rotation's overlap: the old secret, still signing beside the new one until then. */
  previousSecretEnc?: string | null;
  previousValidUntil?: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

type UrlField = "rampWebhookURL" | "paymentWebhookURL";
const URL_FIELDS: UrlField[] = ["rampWebhookURL", "paymentWebhookURL"];

export function createConfigStore(db: Db, key: Buffer) {
  const configs = db.collection<WebhookConfigDoc>("webhook_configs");

  const toDto = (doc: WebhookConfigDoc): WebhookConfigDto => ({
    // `?? null`: some MongoDB-wire backends drop null fields written by $setOnInsert.
    rampWebhookURL: doc.rampWebhookURL ?? null,
    paymentWebhookURL: doc.paymentWebhookURL ?? null,
    webhookSecret: secretOf(doc),
  });

  const secretOf = (doc: WebhookConfigDoc): string => decryptSecret(key, doc.secretEnc);

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
    /**
     * What signs the key's deliveries: its secret and, during a rotation's overlap, the old one with
     * the moment it stops. Kept in memory by the caller, dropped on every replica when rotated.
     */
    async signing(apiKeyId: string): Promise<Signing> {
      const doc = (await configs.findOne({ _id: apiKeyId })) ?? (await upsert(apiKeyId, {}));
      const until = doc.previousValidUntil?.getTime() ?? 0;
      const previous = doc.previousSecretEnc && until > 0 ? decryptSecret(key, doc.previousSecretEnc) : null;
      return { current: secretOf(doc), previous, previousValidUntil: previous ? until : 0 };
    },
    /** A new secret; the old one signs too until `overlapHours` from now (0: it stops at once). */
    async rotate(apiKeyId: string, overlapHours: number, now = new Date()) {
      const old = (await configs.findOne({ _id: apiKeyId })) ?? (await upsert(apiKeyId, {}));
      const webhookSecret = generateWebhookSecret();
      const until = overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000) : null;
      await configs.updateOne(
        { _id: apiKeyId },
        {
          $set: {
            secretEnc: encryptSecret(key, webhookSecret),
            previousSecretEnc: until ? old.secretEnc : null,
            previousValidUntil: until,
            updatedAt: now,
          },
        },
      );
      return { webhookSecret, previousValidUntil: until?.toISOString() ?? null };
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

export interface Signing {
  current: string;
  previous: string | null;
  /** Epoch ms; the previous secret signs until then. */
  previousValidUntil: number;
}

/** The secrets a delivery made at `now` carries, the new one first. */
export const signingSecrets = (s: Signing, now = Date.now()): string[] =>
  s.previous && now < s.previousValidUntil ? [s.current, s.previous] : [s.current];
