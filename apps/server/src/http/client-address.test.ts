import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { clientAddressResolver, clientOf } from "./client-address.js";

/** What @hono/node-server passes as `env`: the request's socket and headers. */
function fromPeer(peer: string, forwardedFor?: string) {
  const incoming = {
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor },
  } as unknown as IncomingMessage;
  return [new Request("http://localhost/"), { incoming }] as const;
}

describe("the client a request comes from", () => {
  it("is the connection's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    const resolve = clientAddressResolver([]);
    expect(resolve(...fromPeer("203.0.113.7", "198.51.100.9"))).toBe("203.0.113.7");
  });

  it("is read from X-Forwarded-For past trusted hops only, from the right", () => {
    const resolve = clientAddressResolver(["loopback", "10.0.0.0/8"]);
    expect(resolve(...fromPeer("127.0.0.1", "198.51.100.9"))).toBe("198.51.100.9");
    // A client's own X-Forwarded-For entries sit left of what its proxy appended: never reached.
    expect(resolve(...fromPeer("127.0.0.1", "1.2.3.4, 198.51.100.9, 10.1.2.3"))).toBe("198.51.100.9");
    // An untrusted peer's header is not believed at all.
    expect(resolve(...fromPeer("203.0.113.7", "198.51.100.9"))).toBe("203.0.113.7");
    expect(resolve(...fromPeer("::ffff:127.0.0.1", "198.51.100.9"))).toBe("198.51.100.9");
  });

  it("groups IPv6 clients by /64 and unwraps IPv4-mapped addresses", () => {
    expect(clientOf("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientOf("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientOf("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientOf("203.0.113.7")).toBe("203.0.113.7");
  });

  it("is undefined outside a Node socket (the engine then counts nothing)", () => {
    expect(clientAddressResolver([])(new Request("http://localhost/"), undefined)).toBeUndefined();
  });
});

describe("GENVIDEO_TRUSTED_PROXIES", () => {
  it("takes addresses, CIDR ranges and proxy-addr's range names, comma-separated", () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(
      loadConfig({ GENVIDEO_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.1,loopback,fd00::/8" }).trustedProxies,
    ).toEqual(["10.0.0.0/8", "192.0.2.1", "loopback", "fd00::/8"]);
  });

  it("stops the start naming the setting and the entry that is not an address", () => {
    expect(() => loadConfig({ GENVIDEO_TRUSTED_PROXIES: "10.0.0.0/8,proxy.internal" })).toThrow(
      /^GENVIDEO_TRUSTED_PROXIES must list IP addresses, CIDR ranges \(10\.0\.0\.0\/8\) or loopback, linklocal, uniquelocal, separated by commas; "proxy\.internal" is none of those$/,
    );
    expect(() => loadConfig({ GENVIDEO_TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(/"10\.0\.0\.0\/33"/);
  });
});

describe("GENVIDEO_RATE_LIMITS failed-auth", () => {
  it("defaults to 20 failed authentications per client and minute, and can be tuned", () => {
    expect(loadConfig({}).rateLimits.failedAuthPerMinute).toBe(20);
    expect(loadConfig({ GENVIDEO_RATE_LIMITS: "failed-auth=5" }).rateLimits).toMatchObject({
      enabled: true,
      createsPerMinute: 120,
      failedAuthPerMinute: 5,
    });
    expect(() => loadConfig({ GENVIDEO_RATE_LIMITS: "failed-auth=0" })).toThrow(
      /^GENVIDEO_RATE_LIMITS must be on, off or creates=<n>,reads=<n>,failed-auth=<n> \(per minute\), got "failed-auth=0"$/,
    );
  });
});
