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

/**
 * The key that replaces `key`: a newer key of the same name made while `key` still worked, which is
 * what a rotation leaves (the old key then works until the overlap ends). Such a key is not rotated
 * again: its successor is. Undefined for a key nothing replaced (or whose successor was revoked).
 */
export function successorOf(key: ApiKeySummary, keys: readonly ApiKeySummary[]): ApiKeySummary | undefined {
  if (key.expiresAt === null || key.revokedAt !== null) return undefined;
  const stopsAt = key.expiresAt;
  return keys.find(
    (other) =>
      other.id !== key.id &&
      other.name === key.name &&
      other.revokedAt === null &&
      other.createdAt > key.createdAt &&
      other.createdAt <= stopsAt,
  );
}
