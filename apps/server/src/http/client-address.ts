/**
 * Who a request comes from, for the limits that count per client (failed API
 * authentications, dashboard sign-ins). The socket's peer is the client,
 * unless it is a proxy named in GENVIDEO_TRUSTED_PROXIES: then
 * `X-Forwarded-For` is read from the right, past every trusted hop, to the
 * first address no trusted proxy vouches for (proxy-addr, as Express does).
 * Anyone can send `X-Forwarded-For`; only a trusted proxy's is believed.
 */
import type { IncomingMessage } from "node:http";
import ipaddr from "ipaddr.js";
import proxyaddr from "proxy-addr";

/** The client a request comes from, from the Node listener's `env`; undefined outside a Node socket. */
export type ClientAddressOf = (request: Request, env: unknown) => string | undefined;

/** Names proxy-addr takes for whole ranges, besides addresses and CIDRs. */
export const TRUSTED_PROXY_NAMES = ["loopback", "linklocal", "uniquelocal"] as const;

/**
 * The resolver for a list of trusted proxies (addresses, CIDRs, `TRUSTED_PROXY_NAMES`);
 * throws a TypeError naming an entry that is none of those.
 */
export function clientAddressResolver(trustedProxies: readonly string[]): ClientAddressOf {
  const trust = proxyaddr.compile([...trustedProxies]);
  return (_request, env) => {
    const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (incoming?.socket?.remoteAddress === undefined) return undefined;
    return clientOf(proxyaddr(incoming, trust));
  };
}

/**
 * One client per IPv4 address and per IPv6 /64 (the block one host or home is
 * given: an address per request costs nothing inside it). IPv4-mapped IPv6
 * (`::ffff:203.0.113.7`, from a dual-stack listener) is the IPv4 address.
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}
