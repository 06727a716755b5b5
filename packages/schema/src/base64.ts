/**
 * Base64 decoding that works in browsers, Node and workers without `node:` imports:
 * `Uint8Array.fromBase64` where the runtime has it (fast, no intermediate string),
 * `atob` everywhere else.
 */

// Standard alphabet only; padding optional. base64url (`-`, `_`) and whitespace are refused so
// that both decoders see exactly the same accepted inputs.
const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether `text` is standard base64 (padding optional, no whitespace). */
export function isBase64(text: string): boolean {
  if (!BASE64_PATTERN.test(text)) return false;
  const padding = paddingLength(text);
  if (padding > 0 && text.length % 4 !== 0) return false;
  // A lone trailing character carries 6 bits: never a whole byte.
  return (text.length - padding) % 4 !== 1;
}

/** Number of bytes `text` decodes to, computed without decoding (for size limits). */
export function decodedBase64Length(text: string): number {
  return Math.floor(((text.length - paddingLength(text)) * 3) / 4);
}

/** Decodes standard base64; check it with {@link isBase64} first. */
export function decodeBase64(text: string): Uint8Array {
  const native = (Uint8Array as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (typeof native === "function") return native.call(Uint8Array, text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function paddingLength(text: string): number {
  if (text.endsWith("==")) return 2;
  return text.endsWith("=") ? 1 : 0;
}
