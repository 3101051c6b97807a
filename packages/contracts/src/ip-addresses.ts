import ipaddr from "ipaddr.js";

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** The IPv4 address in the last 32 bits of an IPv6 address. */
const low32 = (ip: IPv6): IPv4 => {
  const b = ip.toByteArray();
  return new ipaddr.IPv4(b.slice(12, 16));
};

const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/**
 * The IPv4 address an IPv6 address carries or reaches, for the forms that route to one: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), the deprecated IPv4-compatible (::a.b.c.d),
 * well-known NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::). `undefined` for every other address.
 */
function embeddedIPv4(ip: IPv6): IPv4 | undefined {
  switch (ip.range()) {
    case "ipv4Mapped":
    case "rfc6145":
      return low32(ip);
    case "rfc6052":
      return ip.match(NAT64_WELL_KNOWN) ? low32(ip) : undefined;
    case "6to4": {
      const b = ip.toByteArray();
      return new ipaddr.IPv4(b.slice(2, 6));
    }
    default:
      return ip.match(IPV4_COMPATIBLE) && ip.range() === "unicast" ? low32(ip) : undefined;
  }
}

/**
 * True only for a syntactically valid address in globally routed unicast space: never loopback,
 * private, link-local (cloud metadata lives at 169.254.169.254), CGNAT, multicast, reserved or
 * documentation space, and never an IPv6 spelling of such an IPv4 address. Local-use NAT64 and
 * Teredo are refused outright: what they reach cannot be told from the address alone.
 */
export function isPublicAddress(address: string): boolean {
  let verdict = verdicts.get(address);
  if (verdict === undefined) {
    if (verdicts.size >= REMEMBERED_VERDICTS) verdicts.clear();
    verdict = publicAddress(address);
    verdicts.set(address, verdict);
  }
  return verdict;
}

/**
 * The verdict depends on the address alone, and a dispatcher asks it of the same few receivers' addresses
 * on every delivery (parsing one was about 1 % of its CPU): the answers are kept, a bounded number.
 */
const verdicts = new Map<string, boolean>();
const REMEMBERED_VERDICTS = 4096;

function publicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(bare)) return false;
  // ipaddr also accepts legacy IPv4 spellings (0x7f.1, 017700000001); only the four-part decimal
  // form is an address here, the rest never come out of DNS or a parsed URL.
  if (ipaddr.IPv4.isValid(bare) && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return false;
  const ip = ipaddr.parse(bare);
  if (ip.kind() === "ipv4") return ip.range() === "unicast";
  const v6 = ip as IPv6;
  const v4 = embeddedIPv4(v6);
  if (v4) return v4.range() === "unicast";
  return v6.range() === "unicast";
}

/** Whether a URL host (as `URL.hostname` spells it) is an IP literal rather than a DNS name. */
export function isIpLiteral(hostname: string): boolean {
  return ipaddr.isValid(hostname.replace(/^\[|\]$/g, ""));
}
