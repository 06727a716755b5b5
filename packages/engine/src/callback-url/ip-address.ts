/**
 * Classifies IP addresses for callback targets: a webhook may only reach
 * public unicast addresses, so that a callback URL can never be used to make
 * the server talk to itself, its network, or a cloud metadata service (SSRF).
 *
 * Our own parser on bytes rather than `node:net` BlockList: BlockList matches
 * an IPv4-mapped IPv6 address against IPv4 rules only in some Node versions,
 * and we need to pull the embedded IPv4 out of several IPv6 forms anyway. No
 * `node:` import either (the engine runs in browsers): `ipVersion` accepts
 * exactly what `node:net`'s `isIP` accepts, which the server's tests check.
 */

// Node's own grammar (lib/internal/net.js): dotted-quad IPv4 without leading zeros, every IPv6 spelling.
const IPV4_SEGMENT = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const IPV4_TEXT = `(?:${IPV4_SEGMENT}\\.){3}${IPV4_SEGMENT}`;
const IPV6_SEGMENT = "(?:[0-9a-fA-F]{1,4})";
const IPV4_PATTERN = new RegExp(`^${IPV4_TEXT}$`);
const IPV6_PATTERN = new RegExp(
  "^(?:" +
    `(?:${IPV6_SEGMENT}:){7}(?:${IPV6_SEGMENT}|:)|` +
    `(?:${IPV6_SEGMENT}:){6}(?:${IPV4_TEXT}|:${IPV6_SEGMENT}|:)|` +
    `(?:${IPV6_SEGMENT}:){5}(?::${IPV4_TEXT}|(?::${IPV6_SEGMENT}){1,2}|:)|` +
    `(?:${IPV6_SEGMENT}:){4}(?:(?::${IPV6_SEGMENT}){0,1}:${IPV4_TEXT}|(?::${IPV6_SEGMENT}){1,3}|:)|` +
    `(?:${IPV6_SEGMENT}:){3}(?:(?::${IPV6_SEGMENT}){0,2}:${IPV4_TEXT}|(?::${IPV6_SEGMENT}){1,4}|:)|` +
    `(?:${IPV6_SEGMENT}:){2}(?:(?::${IPV6_SEGMENT}){0,3}:${IPV4_TEXT}|(?::${IPV6_SEGMENT}){1,5}|:)|` +
    `(?:${IPV6_SEGMENT}:){1}(?:(?::${IPV6_SEGMENT}){0,4}:${IPV4_TEXT}|(?::${IPV6_SEGMENT}){1,6}|:)|` +
    `(?::(?:(?::${IPV6_SEGMENT}){0,5}:${IPV4_TEXT}|(?::${IPV6_SEGMENT}){1,7}|:))` +
    ")(?:%[0-9a-zA-Z-.:]{1,})?$",
);

/**
 * 4 for an IPv4 address, 6 for an IPv6 one (a zone id allowed), 0 for
 * anything else: `node:net`'s `isIP`, without Node.
 *
 * @example
 * ipVersion("127.0.0.1"); // 4
 * ipVersion("fe80::1%eth0"); // 6
 * ipVersion("127.1"); // 0
 */
export function ipVersion(text: string): 0 | 4 | 6 {
  if (IPV4_PATTERN.test(text)) return 4;
  return IPV6_PATTERN.test(text) ? 6 : 0;
}

/** Why an address is (not) a callback target; every value but `public` is refused. */
export type AddressCategory =
  | "public"
  | "invalid"
  | "unspecified"
  | "this-network"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "metadata"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "benchmarking"
  | "documentation"
  | "ietf-protocol"
  | "unique-local"
  | "site-local"
  | "discard"
  | "6to4"
  | "teredo"
  | "nat64-local";

interface AddressRange {
  prefix: Uint8Array;
  prefixLength: number;
  category: AddressCategory;
}

/**
 * Cloud metadata endpoints, named so that a refusal says what was hit. Most
 * already fall in a refused range; 168.63.129.16 (Azure WireServer) does not.
 */
const metadataAddresses: readonly string[] = [
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, DigitalOcean...
  "169.254.170.2", // AWS ECS task metadata
  "100.100.100.200", // Alibaba Cloud
  "192.0.0.192", // Oracle Cloud
  "168.63.129.16", // Azure WireServer
  "fd00:ec2::254", // AWS IMDS over IPv6
  "fd00:ec2::23", // AWS Time Sync over IPv6
];

// Most specific first: the first match decides.
const ipv4Ranges: readonly AddressRange[] = [
  range("0.0.0.0/32", "unspecified"),
  range("255.255.255.255/32", "broadcast"),
  range("0.0.0.0/8", "this-network"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "shared"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "ietf-protocol"),
  range("192.0.2.0/24", "documentation"),
  range("192.88.99.0/24", "6to4"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved"),
];

const ipv6Ranges: readonly AddressRange[] = [
  range("::/128", "unspecified"),
  range("::1/128", "loopback"),
  // RFC 8215 local-use NAT64: the embedded IPv4 sits at an operator-chosen offset, so it cannot be judged.
  range("64:ff9b:1::/48", "nat64-local"),
  range("100::/64", "discard"),
  range("2001:db8::/32", "documentation"),
  range("3fff::/20", "documentation"),
  range("2001::/32", "teredo"),
  // The rest of 2001::/23 is protocol anycast and benchmarking space, never a webhook receiver.
  range("2001::/23", "ietf-protocol"),
  // 6to4 is deprecated (RFC 7526) and relays are unreliable: refused outright, embedded IPv4 or not.
  range("2002::/16", "6to4"),
  range("5f00::/16", "reserved"),
  range("fc00::/7", "unique-local"),
  range("fe80::/10", "link-local"),
  range("fec0::/10", "site-local"),
  range("ff00::/8", "multicast"),
];

/** IPv6 prefixes that carry an IPv4 address in their last 32 bits, judged by that address. */
const embeddedIpv4Prefixes: readonly AddressRange[] = [
  range("::ffff:0:0/96", "public"), // IPv4-mapped
  range("64:ff9b::/96", "public"), // NAT64 well-known prefix: the gateway connects to the embedded IPv4
  range("::/96", "public"), // IPv4-compatible (deprecated); :: and ::1 are matched before
];

const globalUnicast = range("2000::/3", "public");

const metadataKeys = new Set(metadataAddresses.map((address) => addressKey(parseAddress(address)!)));

/**
 * Says what kind of address `ip` is. Accepts the forms `ipVersion` (and
 * `node:net`) accepts (dotted-quad IPv4, any IPv6 spelling, optionally in brackets);
 * anything else, including IPv6 zone identifiers, is `invalid`.
 *
 * @example
 * classifyAddress("127.0.0.1"); // "loopback"
 * classifyAddress("::ffff:a00:1"); // "private" (IPv4-mapped 10.0.0.1)
 * classifyAddress("8.8.8.8"); // "public"
 */
export function classifyAddress(ip: string): AddressCategory {
  const bytes = parseAddress(ip);
  if (bytes === undefined) return "invalid";
  return classifyBytes(bytes);
}

/**
 * Whether `ip` may be the target of a webhook: a public unicast address.
 *
 * @example
 * isPublicUnicastAddress("2606:4700::1111"); // true
 * isPublicUnicastAddress("169.254.169.254"); // false
 */
export function isPublicUnicastAddress(ip: string): boolean {
  return classifyAddress(ip) === "public";
}

function classifyBytes(bytes: Uint8Array): AddressCategory {
  if (metadataKeys.has(addressKey(bytes))) return "metadata";
  if (bytes.length === 4) return matchRange(bytes, ipv4Ranges) ?? "public";

  const special = ipv6Ranges.find((candidate) => inRange(bytes, candidate));
  if (special !== undefined) return special.category;
  if (embeddedIpv4Prefixes.some((candidate) => inRange(bytes, candidate))) {
    return classifyBytes(bytes.subarray(12, 16));
  }
  // IANA allocates global unicast from 2000::/3 only; everything else is unassigned or special.
  return inRange(bytes, globalUnicast) ? "public" : "reserved";
}

function matchRange(bytes: Uint8Array, ranges: readonly AddressRange[]): AddressCategory | undefined {
  return ranges.find((candidate) => inRange(bytes, candidate))?.category;
}

function inRange(bytes: Uint8Array, candidate: AddressRange): boolean {
  if (bytes.length !== candidate.prefix.length) return false;
  let remaining = candidate.prefixLength;
  for (let index = 0; remaining > 0; index++, remaining -= 8) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((bytes[index]! ^ candidate.prefix[index]!) & mask) !== 0) return false;
  }
  return true;
}

/** The address as 4 or 16 bytes, or undefined when it is not a plain IP address. */
export function parseAddress(ip: string): Uint8Array | undefined {
  if (IPV4_PATTERN.test(ip)) return parseIpv4(ip);
  // Brackets, as in a URL host, only ever wrap IPv6.
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  if (!bare.includes("%") && IPV6_PATTERN.test(bare)) return parseIpv6(bare);
  return undefined;
}

function parseIpv4(ip: string): Uint8Array {
  return Uint8Array.from(ip.split(".").map(Number));
}

function parseIpv6(ip: string): Uint8Array {
  let text = ip;
  // A trailing dotted quad (::ffff:127.0.0.1) stands for the last two groups.
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const [a, b, c, d] = parseIpv4(tail);
    text = `${text.slice(0, lastColon + 1)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const restGroups = rest === undefined || rest === "" ? [] : rest.split(":");
  const zeros = new Array<string>(8 - headGroups.length - restGroups.length).fill("0");
  const groups = rest === undefined ? headGroups : [...headGroups, ...zeros, ...restGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function addressKey(bytes: Uint8Array): string {
  return Array.from(bytes).join(".");
}

function range(cidr: string, category: AddressCategory): AddressRange {
  const [address = "", length = ""] = cidr.split("/");
  const prefix = parseAddress(address);
  if (prefix === undefined) throw new Error(`bad range ${cidr}`);
  return { prefix, prefixLength: Number(length), category };
}
