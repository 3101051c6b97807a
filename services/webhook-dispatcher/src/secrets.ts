import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";
const FORMAT = "v1";

/** A webhook secret: `whsec_` followed by 64 lowercase hex characters. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("hex")}`;
}

/**
 * AES-256-GCM with a fresh 12-byte IV per value; the auth tag makes a tampered or wrongly-keyed
 * ciphertext fail loudly instead of yielding a wrong secret. Versioned so the scheme can change.
 */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [FORMAT, iv.toString("base64"), tag.toString("base64"), ct.toString("base64")].join(":");
}

export function decryptSecret(key: Buffer, stored: string): string {
  const [format, iv, tag, ct] = stored.split(":");
  if (format !== FORMAT || !iv || !tag || !ct) throw new Error("unrecognised encrypted secret format");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
}
