/**
 * Post/redirect/get: every dashboard form answers with a 303 to a page that can be reloaded and
 * bookmarked, and what the action produced (a key shown once, a test event's outcome, a receiver
 * check's report) travels to that page in a one-time "flash" cookie, read and cleared by the page
 * it names. The cookie is sealed (AES-256-GCM) with a key derived from the session token, which
 * only the browser holds (the database keeps its hash): nothing readable rests in the browser or
 * on the server, any API process can open it, and it opens for that session only. It lives a
 * minute; a reload after it was read shows the page without it (a new key is shown once).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { DashboardEnv, DashboardServices } from "./dashboard-env.js";

const FLASH_TTL_S = 60;
/** Browsers keep cookies up to 4096 bytes, name included. */
const MAX_COOKIE_BYTES = 4000;

type FlashServices = Pick<DashboardServices, "cookie">;

function flashCookieName(services: FlashServices): string {
  return services.cookie.secure ? "__Host-genvideo_flash" : "genvideo_flash";
}

function sealingKey(c: Context<DashboardEnv>, services: FlashServices): Buffer | undefined {
  const token = getCookie(c, services.cookie.name);
  if (!token) return undefined;
  return Buffer.from(hkdfSync("sha256", token, "", "genvideo-dashboard-flash", 32));
}

/**
 * Answers a form with a 303 to `location` (a dashboard path, with a `#fragment` to bring the
 * outcome into view), carrying `value` to the page at its path.
 */
export function redirectWithFlash(
  c: Context<DashboardEnv>,
  services: FlashServices,
  location: string,
  value: unknown,
): Response {
  const key = sealingKey(c, services);
  const path = location.split(/[?#]/, 1)[0]!;
  if (key) {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    // The page it is for is sealed in: a flash opens on that page only.
    const plain = deflateRawSync(JSON.stringify({ path, value }));
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    const text = sealed.toString("base64url");
    if (text.length > MAX_COOKIE_BYTES)
      throw new Error(`a flash of ${text.length} bytes does not fit a cookie`);
    setCookie(c, flashCookieName(services), text, {
      httpOnly: true,
      sameSite: "Strict",
      secure: services.cookie.secure,
      path: "/",
      maxAge: FLASH_TTL_S,
    });
  }
  return c.redirect(location, 303);
}

/** The flash sent to the page at `path` (and clears it), or undefined when there is none for it. */
export function takeFlash<T>(c: Context<DashboardEnv>, services: FlashServices, path: string): T | undefined {
  const name = flashCookieName(services);
  const text = getCookie(c, name);
  const key = sealingKey(c, services);
  if (!text || !key) return undefined;
  const opened = open(text, key);
  if (opened?.path !== path) return undefined;
  deleteCookie(c, name, { path: "/", secure: services.cookie.secure });
  return opened.value as T;
}

function open(text: string, key: Buffer): { path: string; value: unknown } | undefined {
  try {
    const sealed = Buffer.from(text, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(-16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(12, -16)), decipher.final()]);
    return JSON.parse(inflateRawSync(plain).toString("utf8"));
  } catch {
    // Another session's flash, or a damaged one: as if there were none.
    return undefined;
  }
}
