/**
 * Parsers of setting values. Each takes what the operator wrote and the variable's name, and
 * returns the value or throws a `ConfigError`: one line naming the setting, what it must be and
 * what it got, so the operator never has to guess which of a dozen variables is wrong. A secret
 * is never echoed.
 */
import { parseDuration } from "@genvideo/engine";

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
}

/** `on`, `off`, or `creates=60,reads=600` to tune the buckets (per API key, per minute). */
export function rateLimits(defaults: RateLimitSettings): Parser<RateLimitSettings> {
  return (raw, name) => {
    const value = raw.trim().toLowerCase();
    if (value === "on" || value === "default") return defaults;
    if (value === "off") return { ...defaults, enabled: false };
    const settings = { ...defaults };
    for (const part of value.split(",")) {
      const match = /^\s*(creates|reads)\s*=\s*(\d+)\s*$/.exec(part);
      const perMinute = match ? Number(match[2]) : 0;
      if (!match || perMinute < 1 || perMinute > 1_000_000) {
        throw new ConfigError(`${name} must be on, off or creates=<n>,reads=<n> (per minute), got "${raw}"`);
      }
      if (match[1] === "creates") settings.createsPerMinute = perMinute;
      else settings.readsPerMinute = perMinute;
    }
    return settings;
  };
}
