/**
 * Parsers of setting values. Each takes what the operator wrote and the variable's name, and
 * returns the value or throws a `ConfigError`: one line naming the setting, what it must be and
 * what it got, so the operator never has to guess which of a dozen variables is wrong. A secret
 * is never echoed.
 */
import { parseDuration } from "@genvideo/engine";
import { clientAddressResolver, TRUSTED_PROXY_NAMES } from "../http/client-address.js";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export type Parser<T> = (raw: string, name: string) => T;

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;

export function integer(min: number, max: number): Parser<number> {
  return (raw, name) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };
}

export const boolean: Parser<boolean> = (raw, name) => {
  const value = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(value)) return true;
  if (["0", "false", "no", "off"].includes(value)) return false;
  throw new ConfigError(`${name} must be 1 or 0 (true/false), got "${raw}"`);
};

/** A duration by the engine's `parseDuration` rules (`7d`, `12h`, `30m`, `90s`, `500ms`, `1h30m`, plain seconds); in ms. */
export function duration(min: number, max: number): Parser<number> {
  return (raw, name) => {
    let value: number | undefined;
    try {
      value = parseDuration(raw);
    } catch {
      value = undefined;
    }
    if (value === undefined || value < min || value > max) {
      throw new ConfigError(
        `${name} must be a duration like 7d, 12h, 30m or 90s, from ${settingDuration(min)} to ${settingDuration(max)}, got "${raw}"`,
      );
    }
    return value;
  };
}

/**
 * A duration in setting syntax (`3650d`, `1s`, `100ms`), so that an error's bounds can be typed
 * back as they are printed. Not the dashboard's readable `humanDuration` (`7 d`, `now`).
 */
function settingDuration(milliseconds: number): string {
  if (milliseconds % DAY_MS === 0) return `${milliseconds / DAY_MS}d`;
  if (milliseconds % SECOND_MS === 0) return `${milliseconds / SECOND_MS}s`;
  return `${milliseconds}ms`;
}

/** One of a few words, in any case; `described` is how the error line lists them. */
export function oneOf<T extends string>(values: readonly T[], described: string): Parser<T> {
  return (raw, name) => {
    const value = raw.trim().toLowerCase();
    if (!values.includes(value as T)) throw new ConfigError(`${name} must be ${described}, got "${raw}"`);
    return value as T;
  };
}

export const text: Parser<string> = (raw) => raw.trim();

/** Comma-separated words; blanks between commas are dropped. */
export const wordList: Parser<string[]> = (raw) =>
  raw
    .split(",")
    .map((word) => word.trim())
    .filter(Boolean);

/** An absolute http(s) URL without query, fragment or credentials; a trailing slash is dropped. */
export const baseUrl: Parser<string> = (raw, name) => {
  const trimmed = raw.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${trimmed}"`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username) {
    throw new ConfigError(`${name} must be an http(s) URL without query or credentials, got "${trimmed}"`);
  }
  return url.href.replace(/\/+$/, "");
};

export const timeScale: Parser<number> = (raw, name) => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1_000_000) {
    throw new ConfigError(`${name} must be a number above 0 and at most 1000000, got "${raw}"`);
  }
  return value;
};

/** The bootstrap API key: a secret, so the error says what is wrong with it and never echoes it. */
export const apiKey: Parser<string> = (raw, name) => {
  if (!/^[A-Za-z0-9_-]{20,255}$/.test(raw)) {
    throw new ConfigError(
      `${name} must be 20 to 255 characters of A-Z, a-z, 0-9, _ and - (got ${raw.length} characters)`,
    );
  }
  return raw;
};

/** A webhook signing secret: `whsec_` and the standard base64 of 16 to 64 bytes. Never echoed. */
export const webhookSecret: Parser<string> = (raw, name) => {
  const body = raw.startsWith("whsec_") ? raw.slice("whsec_".length) : undefined;
  const bytes =
    body !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(body) && body.length % 4 === 0
      ? Buffer.from(body, "base64").length
      : 0;
  if (bytes < 16 || bytes > 64) {
    throw new ConfigError(`${name} must be whsec_ followed by the standard base64 of 16 to 64 bytes`);
  }
  return raw;
};

export interface RateLimitSettings {
  enabled: boolean;
  createsPerMinute: number;
  readsPerMinute: number;
  /** Failed API authentications per client address. */
  failedAuthPerMinute: number;
}

const RATE_LIMIT_BUCKETS = {
  creates: "createsPerMinute",
  reads: "readsPerMinute",
  "failed-auth": "failedAuthPerMinute",
} as const;

/** `on`, `off`, or `creates=60,reads=600,failed-auth=10` to tune the buckets (per minute). */
export function rateLimits(defaults: RateLimitSettings): Parser<RateLimitSettings> {
  return (raw, name) => {
    const value = raw.trim().toLowerCase();
    if (value === "on" || value === "default") return defaults;
    if (value === "off") return { ...defaults, enabled: false };
    const settings = { ...defaults };
    for (const part of value.split(",")) {
      const match = /^\s*(creates|reads|failed-auth)\s*=\s*(\d+)\s*$/.exec(part);
      const perMinute = match ? Number(match[2]) : 0;
      if (!match || perMinute < 1 || perMinute > 1_000_000) {
        throw new ConfigError(
          `${name} must be on, off or creates=<n>,reads=<n>,failed-auth=<n> (per minute), got "${raw}"`,
        );
      }
      settings[RATE_LIMIT_BUCKETS[match[1] as keyof typeof RATE_LIMIT_BUCKETS]] = perMinute;
    }
    return settings;
  };
}

/**
 * Proxies whose `X-Forwarded-For` is believed: IP addresses, CIDR ranges, and proxy-addr's names
 * for whole ranges (`loopback`, `linklocal`, `uniquelocal`), separated by commas.
 */
export const trustedProxies: Parser<string[]> = (raw, name) => {
  const entries = wordList(raw, name);
  for (const entry of entries) {
    try {
      clientAddressResolver([entry]);
    } catch {
      throw new ConfigError(
        `${name} must list IP addresses, CIDR ranges (10.0.0.0/8) or ${TRUSTED_PROXY_NAMES.join(", ")}, separated by commas; "${entry}" is none of those`,
      );
    }
  }
  return entries;
};
