/**
 * A small deterministic generator (sfc32 seeded through a string hash), so a
 * mock built with the same `seed` hands out the same default key, webhook
 * secret, video URL signing key and task ids in every run: snapshots stay stable.
 * Not for anything secret.
 */
export interface SeededRandom {
  /** `length` pseudo-random bytes. */
  bytes(length: number): Uint8Array<ArrayBuffer>;
  /** `length` characters of `[A-Za-z0-9]`. */
  alphanumeric(length: number): string;
  /** A UUID v4 string (version and variant bits set), as `crypto.randomUUID()` returns. */
  uuid(): string;
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function hashSeed(seed: string): [number, number, number, number] {
  // cyrb128: spreads any string over four 32-bit words.
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let index = 0; index < seed.length; index++) {
    const code = seed.charCodeAt(index);
    h1 = h2 ^ Math.imul(h1 ^ code, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ code, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ code, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ code, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

/**
 * @example
 * const random = seededRandom("my-suite");
 * random.alphanumeric(8); // the same 8 characters on every run
 */
export function seededRandom(seed: string | number): SeededRandom {
  let [a, b, c, d] = hashSeed(String(seed));
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  const bytes = (length: number) => {
    const out = new Uint8Array(length);
    for (let index = 0; index < length; index++) out[index] = next() & 0xff;
    return out;
  };
  return {
    bytes,
    alphanumeric(length) {
      let out = "";
      for (let index = 0; index < length; index++) out += ALPHANUMERIC[next() % ALPHANUMERIC.length];
      return out;
    },
    uuid() {
      const value = bytes(16);
      value[6] = (value[6]! & 0x0f) | 0x40;
      value[8] = (value[8]! & 0x3f) | 0x80;
      const hex = Array.from(value, (byte) => byte.toString(16).padStart(2, "0")).join("");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
}
