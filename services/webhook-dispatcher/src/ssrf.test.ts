import { describe, expect, it } from "vitest";
import { assertAllowedUrl, isPublicAddress } from "./ssrf.ts";

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.5",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.255",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "64:ff9b::10.0.0.1",
    "not-an-ip",
  ])("blocks %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "allows %s",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );
});

describe("assertAllowedUrl", () => {
  it("allows anything http(s) when private targets are allowed", () => {
    expect(() => assertAllowedUrl(new URL("http://127.0.0.1:8080/x"), true)).not.toThrow();
  });

  it("requires https and refuses private literals otherwise", () => {
    expect(() => assertAllowedUrl(new URL("http://example.com/"), false)).toThrow(/only https/);
    expect(() => assertAllowedUrl(new URL("https://127.0.0.1/"), false)).toThrow(/not a public address/);
    expect(() => assertAllowedUrl(new URL("https://[::1]/"), false)).toThrow(/not a public address/);
    expect(() => assertAllowedUrl(new URL("https://169.254.169.254/"), false)).toThrow();
    expect(() => assertAllowedUrl(new URL("https://example.com/"), false)).not.toThrow();
    expect(() => assertAllowedUrl(new URL("ftp://example.com/"), true)).toThrow(/scheme/);
  });
});
