import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./passwords.ts";

describe("passwords", () => {
  it("verifies the right password only, and never keeps the password itself", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash).not.toContain("correct");
    expect(hash.startsWith("scrypt$15$8$1$")).toBe(true);
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("correct horse batterY", hash)).toBe(false);
  });

  it("salts each hash, and an unknown person (no hash) never verifies", async () => {
    expect(await hashPassword("same password!")).not.toBe(await hashPassword("same password!"));
    expect(await verifyPassword("anything at all", null)).toBe(false);
  });
});
