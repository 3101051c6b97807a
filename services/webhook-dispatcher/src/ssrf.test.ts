import { describe, expect, it } from "vitest";
import { assertAllowedUrl } from "./ssrf.ts";

describe("assertAllowedUrl", () => {
  it("allows anything http(s) when private targets are allowed", () => {
    expect(() => assertAllowedUrl(new URL("http://127.0.0.1:8080/x"), true)).not.toThrow();
  });

  it("requires https and refuses private literals otherwise, IPv6 spellings of them included", () => {
    expect(() => assertAllowedUrl(new URL("http://example.com/"), false)).toThrow(/only https/);
    expect(() => assertAllowedUrl(new URL("https://127.0.0.1/"), false)).toThrow(/not a public address/);
    expect(() => assertAllowedUrl(new URL("https://[::1]/"), false)).toThrow(/not a public address/);
    expect(() => assertAllowedUrl(new URL("https://[::127.0.0.1]/"), false)).toThrow(/not a public address/);
    expect(() => assertAllowedUrl(new URL("https://[::ffff:0:7f00:1]/"), false)).toThrow(/not a public/);
    expect(() => assertAllowedUrl(new URL("https://169.254.169.254/"), false)).toThrow();
    expect(() => assertAllowedUrl(new URL("https://example.com/"), false)).not.toThrow();
    expect(() => assertAllowedUrl(new URL("ftp://example.com/"), true)).toThrow(/scheme/);
  });
});
