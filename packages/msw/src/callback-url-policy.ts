import type { CallbackUrlCheck } from "@genvideo/engine";

/**
 * The reference server's callback URL rules, minus DNS (the mock's callback
 * hosts are usually names that only msw knows): the same form checks and
 * messages, and literal hosts that are not public refused as the server
 * refuses them. Mirrors apps/server/src/webhooks/callback-url.ts until that
 * policy moves into the engine, where both could share it.
 */

const MAX_URL_LENGTH = 2048;

const IPV4_RANGES: readonly [string, number, string][] = [
  ["0.0.0.0", 32, "unspecified"],
  ["255.255.255.255", 32, "broadcast"],
  ["0.0.0.0", 8, "this-network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "ietf-protocol"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const METADATA_IPV4 = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "192.0.0.192",
  "168.63.129.16",
]);

function ipv4Number(address: string): number | undefined {
  const parts = address.split(".");
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255))
    return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function ipv4Category(address: string): string {
  if (METADATA_IPV4.has(address)) return "metadata";
  const value = ipv4Number(address)!;
  for (const [base, bits, category] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    const start = Math.floor(ipv4Number(base)! / size) * size;
    if (value >= start && value < start + size) return category;
  }
  return "public";
}

/** The common IPv6 refusals; exotic forms (embedded IPv4, NAT64) are judged by the server only. */
function ipv6Category(address: string): string {
  const lower = address.toLowerCase();
  if (lower === "::") return "unspecified";
  if (lower === "::1") return "loopback";
  if (/^f[cd]/.test(lower)) return "unique-local";
  if (/^fe[89ab]/.test(lower)) return "link-local";
  if (/^ff/.test(lower)) return "multicast";
  return "public";
}

function hasHiddenCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code <= 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

const refuse = (reason: string): CallbackUrlCheck => ({ ok: false, reason });
const notPublic = (host: string, category: string) =>
  refuse(`callback_url host ${host} is not a public address (${category})`);

/**
 * Checks a callback URL as the reference server does at task creation.
 *
 * @example
 * await checkCallbackUrl("http://shop.test/hook", false);
 * // { ok: false, reason: "callback_url must use https" }
 */
export async function checkCallbackUrl(raw: string, allowInsecure: boolean): Promise<CallbackUrlCheck> {
  if (raw.length > MAX_URL_LENGTH) return refuse(`callback_url must be at most ${MAX_URL_LENGTH} characters`);
  if (hasHiddenCharacters(raw))
    return refuse("callback_url must not contain whitespace or control characters");
  if (raw.includes("\\")) return refuse("callback_url must not contain backslashes");
  if (!URL.canParse(raw)) return refuse("callback_url must be an absolute URL");
  const url = new URL(raw);
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:"))
    return refuse(allowInsecure ? "callback_url must use http or https" : "callback_url must use https");
  if (url.username !== "" || url.password !== "") return refuse("callback_url must not contain credentials");
  if (raw.includes("#")) return refuse("callback_url must not contain a fragment");
  if (url.port === "0") return refuse("callback_url port must not be 0");
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === "") return refuse("callback_url must have a host");
  if (allowInsecure) return { ok: true };
  if (url.hostname.startsWith("[")) {
    const category = ipv6Category(hostname);
    if (category !== "public") return notPublic(hostname, category);
  } else if (ipv4Number(hostname) !== undefined) {
    const category = ipv4Category(hostname);
    if (category !== "public") return notPublic(hostname, category);
  } else {
    const name = hostname.toLowerCase().replace(/\.$/, "");
    if (name === "localhost" || name.endsWith(".localhost")) return notPublic(hostname, "loopback");
  }
  return { ok: true };
}
