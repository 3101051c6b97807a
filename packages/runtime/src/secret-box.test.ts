import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, isEncryptedSecret, parseSecretKey } from "./secret-box.ts";

describe("secrets kept encrypted at rest", () => {
  it("round-trip through AES-256-GCM and never store the plaintext", () => {
    const key = randomBytes(32);
    const secret = `whsec_${randomBytes(32).toString("hex")}`;
    const stored = encryptSecret(key, secret);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(isEncryptedSecret(stored)).toBe(true);
    expect(isEncryptedSecret("JBSWY3DPEHPK3PXP")).toBe(false);
    expect(decryptSecret(key, stored)).toBe(secret);
    // A fresh IV each time: equal secrets do not give equal ciphertexts.
    expect(encryptSecret(key, secret)).not.toBe(stored);
  });

  it("refuse a wrong key or a tampered value", () => {
    const key = randomBytes(32);
    const stored = encryptSecret(key, "JBSWY3DPEHPK3PXP");
    expect(() => decryptSecret(randomBytes(32), stored)).toThrow();
    const parts = stored.split(":");
    const ct = Buffer.from(parts[3] ?? "", "base64");
    ct[0] = (ct[0] ?? 0) ^ 1;
    parts[3] = ct.toString("base64");
    expect(() => decryptSecret(key, parts.join(":"))).toThrow();
    expect(() => decryptSecret(key, "garbage")).toThrow(/format/);
  });

  it("take a key as 64 hex characters or base64 of 32 bytes, nothing else", () => {
    const raw = randomBytes(32);
    expect(parseSecretKey(raw.toString("hex")).equals(raw)).toBe(true);
    expect(parseSecretKey(raw.toString("base64")).equals(raw)).toBe(true);
    expect(() => parseSecretKey("abcd")).toThrow(/32 bytes/);
  });
});
