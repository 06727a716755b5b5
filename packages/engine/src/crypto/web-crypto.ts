/**
 * The few cryptographic primitives the engine needs, on Web Crypto only
 * (`crypto.subtle`, `crypto.getRandomValues`) so the same code runs in Node,
 * browsers and workers without a `node:` import.
 */

const encoder = new TextEncoder();

/** The 62 characters of API keys and their checksum, in the usual 0-9A-Za-z order. */
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** SHA-256 of a UTF-8 string, as raw bytes. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** SHA-256 of a UTF-8 string, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  return bytesToHex(await sha256(text));
}

/** `length` characters drawn uniformly from the base62 alphabet (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let result = "";
  const buffer = new Uint8Array(length * 2);
  while (result.length < length) {
    crypto.getRandomValues(buffer);
    for (const byte of buffer) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248) result += BASE62_ALPHABET[byte % 62];
      if (result.length === length) break;
    }
  }
  return result;
}

export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

function bytesToHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Compares two strings in time that depends only on their lengths, so a
 * secret's prefix can't be found by timing the comparison.
 */
export function constantTimeEqual(left: string, right: string): boolean {
  // UTF-16 code units compare exactly as the strings do; no encoding (and no allocation) needed.
  let difference = left.length ^ right.length;
  const length = Math.max(left.length, right.length);
  for (let index = 0; index < length; index++)
    difference |= (left.charCodeAt(index) | 0) ^ (right.charCodeAt(index) | 0);
  return difference === 0;
}

/**
 * JSON with object keys sorted at every level: two bodies that differ only in
 * key order or whitespace hash the same (idempotency compares requests by it).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
