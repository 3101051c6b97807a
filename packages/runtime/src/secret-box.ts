import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";

const FORMAT = "v1";

/** A 32-byte key from 64 hex characters or base64 (the `*_SECRET_KEY` settings). */
export function parseSecretKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (key.length !== 32) throw new Error("must be 32 bytes, as 64 hex characters or base64");
  return key;
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

/** Whether a stored value is one `encryptSecret` wrote (a base32 or hex secret never holds a colon). */
export const isEncryptedSecret = (stored: string) => stored.startsWith(`${FORMAT}:`);

const validKey = (raw: string) => {
  try {
    parseSecretKey(raw);
    return true;
  } catch {
    return false;
  }
};

/** A `*_SECRET_KEY` setting: unset (the sandbox's published key; production mode refuses it) or 32 bytes. */
export const envSecretKey = z
  .string()
  .optional()
  .refine((raw) => !raw || validKey(raw), "must be 32 bytes, as 64 hex characters or base64");
