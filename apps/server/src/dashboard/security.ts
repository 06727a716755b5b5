/**
 * The dashboard's defences, applied before any page runs (see
 * docs/dashboard.md, "Security"): response headers that forbid inline
 * script, framing and referrers; a Host allow-list against DNS rebinding;
 * writes only from the dashboard's own origin and with the session's CSRF
 * token, compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";

/** Hosts the dashboard answers besides the public URL's: the loopback names. */
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** The hostnames (no port) the dashboard accepts in a request's Host. */
export function allowedHosts(publicUrl: string): Set<string> {
  return new Set([new URL(publicUrl).hostname.toLowerCase(), ...LOOPBACK_HOSTS]);
}

/** The hostname of a Host header (`example.com:8787` → `example.com`, `[::1]:80` → `[::1]`). */
export function hostnameOf(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  const colon = trimmed.indexOf(":");
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

/**
 * The Content-Security-Policy of every dashboard response: scripts, styles
 * and images from the dashboard only (no inline anything), videos from the
 * server's public URL as well, nothing may frame it, forms post only here.
 */
export function contentSecurityPolicy(mediaOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `media-src 'self' ${mediaOrigins.join(" ")}`.trim(),
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

export function securityHeaders(mediaOrigins: readonly string[]): MiddlewareHandler {
  const csp = contentSecurityPolicy(mediaOrigins);
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    // A page playing a video from elsewhere (S3-compatible storage) names that origin.
    const extra = c.get("mediaOrigin") as string | undefined;
    headers.set(
      "Content-Security-Policy",
      extra && !mediaOrigins.includes(extra) ? contentSecurityPolicy([...mediaOrigins, extra]) : csp,
    );
    headers.set("X-Frame-Options", "DENY");
    // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on form posts.
    headers.set("Referrer-Policy", "same-origin");
    headers.set("X-Content-Type-Options", "nosniff");
    headers.set("Cross-Origin-Opener-Policy", "same-origin");
    headers.set("Cross-Origin-Resource-Policy", "same-origin");
    headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
    // Pages hold account data: never from a cache, never after a sign-out on back.
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  };
}

/** Refuses a request whose Host is not one of the server's own names (DNS rebinding). */
export function hostAllowList(hosts: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!host || !hosts.has(hostnameOf(host))) {
      return c.text("Refused: this host name is not one of this server's (DNS rebinding protection).", 403);
    }
    return next();
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

export function isWrite(method: string): boolean {
  return !SAFE_METHODS.has(method);
}

/**
 * A write must come from a page of this very origin: its `Origin` is the
 * request's own scheme and host (browsers send it on every POST), and a
 * browser's `Sec-Fetch-Site`, when present, says same-origin.
 */
export function sameOriginWrites(): MiddlewareHandler {
  return async (c, next) => {
    if (!isWrite(c.req.method)) return next();
    const origin = c.req.header("origin");
    const own = new URL(c.req.url);
    const expected = `${own.protocol}//${c.req.header("host") ?? own.host}`;
    const site = c.req.header("sec-fetch-site");
    if (origin !== expected.toLowerCase() && origin !== expected) {
      return c.text(
        "Refused: a change must come from the dashboard's own pages (cross-origin request).",
        403,
      );
    }
    if (site !== undefined && site !== "same-origin") {
      return c.text("Refused: a change must come from the dashboard's own pages (cross-site request).", 403);
    }
    return next();
  };
}

/**
 * The CSRF token of a session: derived from the session's secret token, so
 * it needs no storage, changes with every session and cannot be computed
 * without the HttpOnly cookie.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac("sha256", sessionToken).update("genvideo-dashboard-csrf").digest("base64url");
}

export function csrfTokenMatches(sessionToken: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
