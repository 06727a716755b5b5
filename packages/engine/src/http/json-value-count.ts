const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;

/**
 * Whether JSON text holds more than `limit` values inside its arrays and objects, told from its
 * bytes before any parsing: each `[` or `{` opens a container holding one value or more (an empty
 * one counts one too) and each `,` outside a string adds one. `JSON.parse` builds every value it
 * reads, and a tiny one (`{}` of 2 bytes) costs it tens of bytes of heap and a few microseconds,
 * so a large body of them cost seconds and gigabytes. Strings are skipped with a native search
 * for their closing quote, which keeps the scan of a body of base64 images at tens of ms. Exact
 * for valid JSON; on other text the answer does not matter, since the parse then refuses it.
 */
export function holdsMoreJsonValuesThan(bytes: Uint8Array, limit: number): boolean {
  let count = 0;
  let index = 0;
  while (index < bytes.length) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      const end = closingQuote(bytes, index + 1);
      if (end < 0) return false;
      index = end + 1;
      continue;
    }
    if ((byte === COMMA || byte === OPEN_BRACKET || byte === OPEN_BRACE) && ++count > limit) return true;
    index++;
  }
  return false;
}

/** The index of the quote that ends a string whose contents start at `from`, or -1. */
function closingQuote(bytes: Uint8Array, from: number): number {
  let quote = bytes.indexOf(QUOTE, from);
  while (quote >= 0) {
    // Escaped when an odd number of backslashes precede it. Each run is walked once: linear.
    let backslashes = 0;
    while (quote - 1 - backslashes >= from && bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = bytes.indexOf(QUOTE, quote + 1);
  }
  return -1;
}
