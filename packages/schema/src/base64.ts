/**
 * Standard base64 for every package (the engine, the SDK, the schema's own data URIs), in
 * browsers, Node and workers without `node:` imports: `Uint8Array.fromBase64` and `toBase64`
 * where the runtime has them (fast, no intermediate string), `atob` and `btoa` everywhere else.
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
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (typeof native === "function") return native.call(Uint8Array, text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Standard base64 of `bytes`, padded. */
export function encodeBase64(bytes: Uint8Array): string {
  const native = (bytes as { toBase64?: () => string }).toBase64;
  if (typeof native === "function") return native.call(bytes);
  let binary = "";
  // Chunks keep multi-megabyte inputs fast without exceeding the argument limit.
  for (let offset = 0; offset < bytes.length; offset += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  return btoa(binary);
}

/** The bytes of standard base64 that is padded to whole quads (the form secrets take), else undefined. */
export function decodePaddedBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  return text.length % 4 === 0 && isBase64(text) ? decodeBase64(text) : undefined;
}

function paddingLength(text: string): number {
  if (text.endsWith("==")) return 2;
  return text.endsWith("=") ? 1 : 0;
}
