/**
 * The callback URL rules that need no DNS: one copy for the reference server
 * (which adds DNS at creation and checks the address again at each
 * connection) and the msw mock (whose callback hosts are usually names only
 * msw knows), so both refuse the same URLs with the same messages.
 */
import { type AddressCategory, classifyAddress, ipVersion } from "./ip-address.js";

/** What a callback URL check answers: fine, or the reason it is refused (sent to the client). */
export type CallbackUrlCheck = { ok: true } | { ok: false; reason: string };

/** A callback URL whose form passed: the parsed URL and its host without IPv6 brackets. */
export type CallbackTarget = { ok: true; url: URL; hostname: string } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

// WHATWG URL silently drops tabs and newlines and trims spaces and controls; a URL that relies on it is refused.
function hasHiddenCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code <= 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/**
 * Checks the form of a callback URL and the host as written (after WHATWG
 * normalisation, so `127.1`, `2130706433` and `0x7f.1` are seen as
 * `127.0.0.1`): `https:` (or `http:` with `allowInsecure`), no credentials,
 * no fragment, at most 2048 characters, and a literal host that is a public
 * address and not `localhost`. With `allowInsecure` any host passes. Does no
 * DNS: a name is the caller's to resolve.
 *
 * @example
 * parseCallbackUrl("https://127.1/hook", false);
 * // { ok: false, reason: "callback_url host 127.0.0.1 is not a public address (loopback)" }
 */
export function parseCallbackUrl(raw: string, allowInsecure: boolean): CallbackTarget {
  if (raw.length > MAX_URL_LENGTH) return refuse(`callback_url must be at most ${MAX_URL_LENGTH} characters`);
  if (hasHiddenCharacters(raw))
    return refuse("callback_url must not contain whitespace or control characters");
  // Special-scheme parsing turns a backslash into a slash, a classic way to make two parsers disagree.
  if (raw.includes("\\")) return refuse("callback_url must not contain backslashes");
  if (!URL.canParse(raw)) return refuse("callback_url must be an absolute URL");
  const url = new URL(raw);

  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) {
    return refuse(allowInsecure ? "callback_url must use http or https" : "callback_url must use https");
  }
  if (url.username !== "" || url.password !== "") return refuse("callback_url must not contain credentials");
  if (raw.includes("#")) return refuse("callback_url must not contain a fragment");
  if (url.port === "0") return refuse("callback_url port must not be 0");

  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === "") return refuse("callback_url must have a host");
  if (!allowInsecure) {
    if (ipVersion(hostname) !== 0) {
      const category = classifyAddress(hostname);
      if (category !== "public") return refuse(notPublic(hostname, category));
    } else if (isLocalhostName(hostname)) {
      return refuse(notPublic(hostname, "loopback"));
    }
  }
  return { ok: true, url, hostname };
}

/**
 * A refusal with the switch that would lift it (`hint`, in the terms of the host that answers): a
 * URL that insecure callbacks would accept (http:, a loopback or private target) was refused only
 * because they are off.
 *
 * @example
 * withInsecureCallbacksHint("http://127.0.0.1:3000/hooks", "callback_url must use https", hint);
 * // "callback_url must use https; for local development, start the server with ..."
 */
export function withInsecureCallbacksHint(raw: string, reason: string, hint: string): string {
  return parseCallbackUrl(raw, true).ok ? `${reason}; ${hint}` : reason;
}

/**
 * `parseCallbackUrl` as a verdict for the engine's `validateCallbackUrl`:
 * the whole check where callback hosts are not resolved (the msw mock), and
 * the engine's default.
 *
 * @example
 * checkCallbackUrlSyntax("https://user:pw@shop.test/hook", false);
 * // { ok: false, reason: "callback_url must not contain credentials" }
 */
export function checkCallbackUrlSyntax(raw: string, allowInsecure: boolean): CallbackUrlCheck {
  const target = parseCallbackUrl(raw, allowInsecure);
  return target.ok ? { ok: true } : target;
}

/**
 * RFC 6761: `localhost` and every name under it are loopback, whatever DNS says.
 *
 * @example
 * isLocalhostName("api.localhost."); // true
 */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

function notPublic(host: string, category: AddressCategory): string {
  return `callback_url host ${host} is not a public address (${category})`;
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
