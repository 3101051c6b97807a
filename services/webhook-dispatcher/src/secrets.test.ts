import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "./secrets.ts";

describe("webhook secrets", () => {
  it("are `whsec_` and 64 lowercase hex characters, and unique", () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it("round-trip through AES-256-GCM and never store the plaintext", () => {
    const key = randomBytes(32);
    const secret = generateWebhookSecret();
    const stored = encryptSecret(key, secret);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(decryptSecret(key, stored)).toBe(secret);
    // A fresh IV each time: equal secrets do not give equal ciphertexts.
    expect(encryptSecret(key, secret)).not.toBe(stored);
  });

  it("refuse a wrong key or a tampered value", () => {
    const key = randomBytes(32);
    const stored = encryptSecret(key, generateWebhookSecret());
    expect(() => decryptSecret(randomBytes(32), stored)).toThrow();
    const parts = stored.split(":");
    const ct = Buffer.from(parts[3] ?? "", "base64");
    ct[0] = (ct[0] ?? 0) ^ 1;
    parts[3] = ct.toString("base64");
    expect(() => decryptSecret(key, parts.join(":"))).toThrow();
    expect(() => decryptSecret(key, "garbage")).toThrow(/format/);
  });
});
