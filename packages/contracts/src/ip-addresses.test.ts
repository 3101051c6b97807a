import { describe, expect, it } from "vitest";
import { isPublicAddress } from "./ip-addresses.ts";

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
    "192.0.2.1",
    "198.18.0.1",
    "::1",
    "::",
    "[::1]",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "2001:db8::1",
    // IPv4-mapped, -translated and -compatible spellings of private addresses
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "::ffff:0:7f00:1",
    "::127.0.0.1",
    "::7f00:1",
    "[::10.0.0.1]",
    // NAT64 and 6to4 forms that reach private IPv4 addresses
    "64:ff9b::10.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::a00:1",
    "2002:7f00:1::",
    "2002:a9fe:a9fe::1",
    // Teredo: what it reaches cannot be told from the address
    "2001::1",
    "not-an-ip",
    "0x7f.1",
  ])("blocks %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("allows %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});
