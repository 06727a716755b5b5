/**
 * The callback URL policy checked when a task is created: `https:` only, no
 * credentials, and a host that is, or resolves only to, public unicast
 * addresses. The sender checks the addresses again at each connection (see
 * guarded-connector.ts), because DNS can change between creation and delivery.
 */
import type { CallbackUrlCheck } from "@genvideo/engine";
import {
  type AddressCategory,
  classifyAddress,
  ipVersion,
  isLocalhostName,
  parseCallbackUrl,
} from "@genvideo/engine/rules";
import { type ResolvedAddress, type ResolveHost, resolveWithSystemDns } from "./host-resolver.js";

// The form of the URL (scheme, credentials, literal hosts) is the engine's, shared with the msw mock.
export { isLocalhostName, parseCallbackUrl };

export interface CallbackUrlPolicy {
  /** `GENVIDEO_ALLOW_INSECURE_CALLBACKS=1`: allow `http:` and loopback or private targets (local development). */
  allowInsecure: boolean;
  /** Defaults to the system resolver; tests inject their own. */
  resolve?: ResolveHost;
  /** How long creation waits for DNS before refusing the URL. */
  resolveTimeoutMs?: number;
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
export async function validateCallbackUrl(raw: string, policy: CallbackUrlPolicy): Promise<CallbackUrlCheck> {
  const target = parseCallbackUrl(raw, policy.allowInsecure);
  if (!target.ok) return target;
  if (policy.allowInsecure || ipVersion(target.hostname) !== 0) return { ok: true };

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
): (url: string) => Promise<CallbackUrlCheck> {
  return (url) => validateCallbackUrl(url, policy);
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
