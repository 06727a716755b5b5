/**
 * Turns what undici and Node throw into the short, stable strings recorded
 * per attempt (and shown by `webhooks list`). Messages of library errors
 * change between versions; codes do not, so codes are what we keep.
 */
import type { WebhookFailureKind } from "@genvideo/engine";
import { refusedAddressCode } from "./host-resolver.js";

const undiciCodes: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: "connect timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  UND_ERR_ABORTED: "aborted",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_HEADERS_OVERFLOW: "response headers too large",
  UND_ERR_CLOSED: "sender closed",
  UND_ERR_DESTROYED: "sender closed",
  ETIMEDOUT: "connect timeout",
};

const plainCode = /^[A-Z][A-Z0-9_]{1,63}$/;

export function describeDeliveryError(error: unknown): string {
  const found = findCoded(error);
  if (found === undefined) return "request failed";
  if (found.code === refusedAddressCode) return found.message;
  return undiciCodes[found.code] ?? found.code;
}

const timeoutCodes = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

/**
 * The kind of a failed attempt, for metrics: out of time, refused by the
 * address policy, or any other failure to reach the receiver (refused or
 * reset connections, DNS, TLS). Undefined for what is none of those (aborted).
 */
export function deliveryFailureKind(error: unknown): WebhookFailureKind | undefined {
  const code = findCoded(error)?.code;
  if (code === refusedAddressCode) return "refused";
  if (code !== undefined && timeoutCodes.has(code)) return "timeout";
  if (code === "UND_ERR_ABORTED") return undefined;
  return "connect_error";
}

/** The first error with a usable code, looking through `cause` and AggregateError members. */
function findCoded(error: unknown, depth = 0): { code: string; message: string } | undefined {
  if (depth > 4 || typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && plainCode.test(code)) {
    return { code, message: typeof message === "string" ? message : code };
  }
  if (error instanceof AggregateError) {
    for (const member of error.errors) {
      const found = findCoded(member, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return findCoded((error as { cause?: unknown }).cause, depth + 1);
}
