import { describe, expect, it } from "vitest";
import { sha256Hex } from "./digest.ts";

describe("sha256Hex", () => {
  it("is SHA-256 as stored API key hashes were made, so keys issued before still authenticate", () => {
    // FIPS 180-2's test vectors.
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // UTF-8, as createHash(...).update(string) hashes a string.
    expect(sha256Hex("₦")).toBe("8c0e184ef8d588e464cfea95ef83eddf266ca3a7350379a1c78b4cf6bd0113fc");
  });
});
