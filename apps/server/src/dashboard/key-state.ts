/** What state an API key is in, in the words the dashboard and the CLI both use. */
import type { ApiKeySummary } from "@genvideo/engine";

/** A key that stops within this (service time) is "expires soon". */
export const EXPIRES_SOON_MS = 24 * 3_600_000;

export type KeyState = "revoked" | "expired" | "expiring" | "active";

export function keyState(key: ApiKeySummary, now: number): KeyState {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt === null) return "active";
  if (key.expiresAt <= now) return "expired";
  return key.expiresAt - now <= EXPIRES_SOON_MS ? "expiring" : "active";
}

export const KEY_STATE_WORDS: Record<KeyState, string> = {
  revoked: "revoked",
  expired: "expired",
  expiring: "expires soon",
  active: "active",
};

/** A key's name, or that it has none. */
export function keyLabel(key: Pick<ApiKeySummary, "name">): string {
  return key.name || "no name";
}
