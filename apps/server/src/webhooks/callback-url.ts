/**
 * The callback URL policy checked when a task is created: `https:` only, no
 * credentials, and a host that is, or resolves only to, public unicast
 * addresses. The sender checks the addresses again at each connection (see
 * guarded-connector.ts), because DNS can change between creation and delivery.
 */
import { isIP } from "node:net";
import { type ResolvedAddress, type ResolveHost, resolveWithSystemDns } from "./host-resolver.js";
import { type AddressCategory, classifyAddress } from "./ip-address.js";

/** `reason` is shown to the API caller as the INVALID_CALLBACK_URL message. */
export type CallbackUrlVerdict = { ok: true } | { ok: false; reason: string };

export interface CallbackUrlPolicy {
  /** `GENVIDEO_ALLOW_INSECURE_CALLBACKS=1`: allow `http:` and loopback or private targets (local development). */
  allowInsecure: boolean;
  /** Defaults to the system resolver; tests inject their own. */
  resolve?: ResolveHost;
  /** How long creation waits for DNS before refusing the URL. */
  resolveTimeoutMs?: number;
}

/** A callback URL whose form passed: the parsed URL and its host without IPv6 brackets. */
export type CallbackTarget = { ok: true; url: URL; hostname: string } | { ok: false; reason: string };

const maxUrlLength = 2048;
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
 * `127.0.0.1`). Does no DNS; the sender uses it before each attempt.
 */
export function parseCallbackUrl(raw: string, allowInsecure: boolean): CallbackTarget {
  if (raw.length > maxUrlLength) return refuse(`callback_url must be at most ${maxUrlLength} characters`);
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
    if (isIP(hostname) !== 0) {
      const category = classifyAddress(hostname);
      if (category !== "public") return refuse(notPublic(hostname, category));
    } else if (isLocalhostName(hostname)) {
      return refuse(notPublic(hostname, "loopback"));
    }
  }
  return { ok: true, url, hostname };
}

/** The first address that is not public unicast, with its category; undefined when all are public. */
export function findRefusedAddress(
  addresses: readonly ResolvedAddress[],
): { address: string; category: AddressCategory } | undefined {
  for (const { address } of addresses) {
    const category = classifyAddress(address);
    if (category !== "public") return { address, category };
  }
  return undefined;
}

/**
 * The full check at task creation: form, then DNS. A name is refused when ANY
 * of its addresses is not public, because the connection could use any of them.
 * With `allowInsecure` no DNS is done: every address is allowed then anyway.
 *
 * @example
 * await validateCallbackUrl("https://hooks.example.com/genvideo", { allowInsecure: false });
 * // { ok: true } when hooks.example.com resolves to public addresses only
 * await validateCallbackUrl("https://127.1/hook", { allowInsecure: false });
 * // { ok: false, reason: "callback_url host 127.0.0.1 is not a public address (loopback)" }
 */
export async function validateCallbackUrl(
  raw: string,
  policy: CallbackUrlPolicy,
): Promise<CallbackUrlVerdict> {
  const target = parseCallbackUrl(raw, policy.allowInsecure);
  if (!target.ok) return target;
  if (policy.allowInsecure || isIP(target.hostname) !== 0) return { ok: true };

  const resolve = policy.resolve ?? resolveWithSystemDns;
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await withTimeout(resolve(target.hostname), policy.resolveTimeoutMs ?? 5_000);
  } catch {
    return refuse(`callback_url host ${target.hostname} does not resolve`);
  }
  if (addresses.length === 0) return refuse(`callback_url host ${target.hostname} does not resolve`);
  const refused = findRefusedAddress(addresses);
  if (refused !== undefined) {
    return refuse(
      `callback_url host ${target.hostname} resolves to a non-public address (${refused.address}, ${refused.category})`,
    );
  }
  return { ok: true };
}

/**
 * The engine's `validateCallbackUrl` with the server's policy bound in.
 *
 * @example
 * const validateCallback = createCallbackUrlValidator({ allowInsecure: config.allowInsecureCallbacks });
 * const verdict = await validateCallback("https://hooks.example.com/genvideo");
 */
export function createCallbackUrlValidator(
  policy: CallbackUrlPolicy,
): (url: string) => Promise<CallbackUrlVerdict> {
  return (url) => validateCallbackUrl(url, policy);
}

/** RFC 6761: `localhost` and every name under it are loopback, whatever DNS says. */
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

async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("resolve timeout")), timeoutMs);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
