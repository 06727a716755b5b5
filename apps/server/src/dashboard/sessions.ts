/**
 * Sign-in without passwords: a one-time link (printed by the first start and
 * by `genvideo-server dashboard link`) becomes a session cookie. Only the
 * SHA-256 of a link's or a session's token is stored; a link works once and
 * for 15 minutes, a session for 7 days or until signed out. Times here are
 * wall-clock: they are for people, not the service clock.
 */
import { createHash, randomBytes } from "node:crypto";
import type { DashboardQueries } from "../store/dashboard-queries.js";

export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const SESSION_TTL_MS = 7 * 24 * 60 * 60_000;

/** A fresh secret token: 256 random bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The path a sign-in link opens (the token is its only query parameter). */
export const SIGN_IN_PATH = "/dashboard/sign-in";

/** Makes a one-time sign-in link for an account. */
export async function createSignInLink(
  queries: DashboardQueries,
  accountId: string,
  publicUrl: string,
  now: number = Date.now(),
): Promise<{ url: string; expiresAt: number }> {
  const token = newToken();
  const expiresAt = now + SIGN_IN_LINK_TTL_MS;
  await queries.insertSignInLink(tokenHash(token), accountId, now, expiresAt);
  const url = new URL(SIGN_IN_PATH, publicUrl);
  url.searchParams.set("token", token);
  return { url: url.href, expiresAt };
}

/** The session cookie's name: `__Host-` (Secure, whole site, this host only) when served over https. */
export function sessionCookieName(secure: boolean): string {
  return secure ? "__Host-genvideo_session" : "genvideo_session";
}
