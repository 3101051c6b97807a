import { BlockList, isIP } from "node:net";

/**
 * Ranges a webhook must never reach when private targets are not allowed: loopback, RFC 1918,
 * link-local (cloud metadata lives at 169.254.169.254), CGNAT, "this network", multicast, reserved,
 * documentation/benchmark nets, and their IPv6 counterparts.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

/** The IPv4 address hidden in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIPv4(ip: string): string | null {
  const lower = ip.toLowerCase();
  const m = /^(?:::ffff:|64:ff9b::)(?:0:)?([0-9.]+)$/.exec(lower);
  if (m?.[1] && isIP(m[1]) === 4) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex?.[1] || !hex[2]) return null;
  const hi = Number.parseInt(hex[1], 16);
  const lo = Number.parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

/** True only for a syntactically valid address outside every blocked range. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !blocked.check(ip, "ipv4");
  if (family === 6) {
    const v4 = embeddedIPv4(ip);
    if (v4) return isPublicAddress(v4);
    return !blocked.check(ip, "ipv6");
  }
  return false;
}

export class RefusedTarget extends Error {
  override name = "RefusedTarget";
}

/** Checks what can be checked without DNS; the resolved addresses are checked at connect time. */
export function assertAllowedUrl(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new RefusedTarget(`Refused: unsupported scheme ${url.protocol}`);
  }
  if (allowPrivate) return;
  if (url.protocol !== "https:") throw new RefusedTarget("Refused: only https URLs are allowed");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && !isPublicAddress(host)) {
    throw new RefusedTarget(`Refused: ${host} is not a public address`);
  }
}
