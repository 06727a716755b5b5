import { API_KEY_PREFIX } from "@genvideo/schema";
import { BASE62_ALPHABET, randomBase62, sha256, sha256Hex } from "../crypto/web-crypto.js";

const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const GENERATED_KEY = /^gen_sk_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
/** What an operator may supply as a bootstrap key (`GENVIDEO_BOOTSTRAP_API_KEY` in the server README). */
const SUPPLIED_KEY = /^[A-Za-z0-9_-]{20,255}$/;

/**
 * The 6-character checksum of a key's 32 random characters: character `i` is
 * `BASE62[sha256(random)[i] % 62]`. It lets the engine refuse a mistyped or
 * made-up key without a database lookup (and lets scanners spot real keys).
 */
export async function apiKeyChecksum(random: string): Promise<string> {
  const digest = await sha256(random);
  let checksum = "";
  for (let index = 0; index < CHECKSUM_LENGTH; index++) checksum += BASE62_ALPHABET[digest[index]! % 62];
  return checksum;
}

/** A new key: `gen_sk_` + 32 random base62 characters + their checksum. Shown once, stored only as a hash. */
export async function generateApiKey(): Promise<string> {
  const random = randomBase62(RANDOM_LENGTH);
  return `${API_KEY_PREFIX}${random}${await apiKeyChecksum(random)}`;
}

/** Whether a presented key could be one of ours; false means "Invalid API key" without a lookup. */
export async function isPlausibleApiKey(key: string): Promise<boolean> {
  const generated = GENERATED_KEY.exec(key);
  if (generated) return (await apiKeyChecksum(generated[1]!)) === generated[2];
  // Keys supplied at bootstrap may have any shape within this set, except a
  // gen_sk_-looking one with a wrong checksum, which bootstrap refuses.
  return SUPPLIED_KEY.test(key) && !looksGenerated(key);
}

/** Why a key supplied at bootstrap is unusable, or undefined when it is fine. */
export async function suppliedApiKeyProblem(key: string): Promise<string | undefined> {
  if (!SUPPLIED_KEY.test(key)) return "must be 20 to 255 characters of A-Z, a-z, 0-9, _ and -";
  if (looksGenerated(key) && !(await isPlausibleApiKey(key)))
    return "looks like a gen_sk_ key but its checksum is wrong";
  return undefined;
}

function looksGenerated(key: string): boolean {
  return (
    key.startsWith(API_KEY_PREFIX) && key.length === API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH
  );
}

/** The stored form of a key: SHA-256, hex. A high-entropy key needs no slow hash. */
export function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}

/** The part of a key safe to show in listings: enough to recognise it, useless to an attacker. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.startsWith(API_KEY_PREFIX) ? key.slice(0, API_KEY_PREFIX.length + 4) : key.slice(0, 4);
}
