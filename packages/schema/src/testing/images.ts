/**
 * `@genvideo/schema/testing`: tiny real image headers for tests, just enough bytes for the
 * magic numbers and the size fields, built by hand so that tests need no image files or
 * libraries. `PNG_IMAGE`, `JPEG_IMAGE` and `WEBP_IMAGE` are data URIs the request schema accepts.
 */
import { encodeBase64 } from "../base64.js";

function bytesOf(...parts: (number[] | string | Uint8Array)[]): Uint8Array {
  const numbers: number[] = [];
  for (const part of parts) {
    if (typeof part === "string") for (const character of part) numbers.push(character.charCodeAt(0));
    else numbers.push(...part);
  }
  return Uint8Array.from(numbers);
}

const uint16BigEndian = (value: number) => [(value >>> 8) & 0xff, value & 0xff];
const uint32BigEndian = (value: number) => [
  ...uint16BigEndian(value >>> 16),
  ...uint16BigEndian(value & 0xffff),
];
const uint16LittleEndian = (value: number) => [value & 0xff, (value >>> 8) & 0xff];
const uint24LittleEndian = (value: number) => [...uint16LittleEndian(value & 0xffff), (value >>> 16) & 0xff];
const uint32LittleEndian = (value: number) => [
  ...uint16LittleEndian(value & 0xffff),
  ...uint16LittleEndian(value >>> 16),
];

/** PNG signature and IHDR chunk (CRC not checked by the reader, so zeros). */
export function pngBytes(width: number, height: number): Uint8Array {
  return bytesOf(
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    uint32BigEndian(13),
    "IHDR",
    uint32BigEndian(width),
    uint32BigEndian(height),
    [8, 2, 0, 0, 0],
    [0, 0, 0, 0],
  );
}

/** SOI, an APP0 (JFIF) segment, optionally a DHT segment and fill bytes, a SOF marker with the size, EOI. */
export function jpegBytes(
  width: number,
  height: number,
  options: { startOfFrame?: number; extraSegments?: boolean } = {},
): Uint8Array {
  const app0 = [0xff, 0xe0, ...uint16BigEndian(16), ..."JFIF\0".split("").map((c) => c.charCodeAt(0))];
  app0.push(1, 1, 0, 0, 1, 0, 1, 0, 0);
  const extra = options.extraSegments ? [0xff, 0xc4, ...uint16BigEndian(4), 0, 0, 0xff, 0xff] : [];
  const frame = [0xff, options.startOfFrame ?? 0xc0, ...uint16BigEndian(17), 8];
  frame.push(...uint16BigEndian(height), ...uint16BigEndian(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1);
  return bytesOf([0xff, 0xd8], app0, extra, frame, [0xff, 0xd9]);
}

function riff(chunkName: string, chunk: number[]): Uint8Array {
  return bytesOf(
    "RIFF",
    uint32LittleEndian(4 + 8 + chunk.length),
    "WEBP",
    chunkName,
    uint32LittleEndian(chunk.length),
    chunk,
  );
}

/** WebP with a lossy (VP8) key frame header. */
export function webpLossyBytes(width: number, height: number): Uint8Array {
  return riff("VP8 ", [
    0x30,
    0x01,
    0x00,
    0x9d,
    0x01,
    0x2a,
    ...uint16LittleEndian(width),
    ...uint16LittleEndian(height),
    0,
    0,
  ]);
}

/** WebP with a lossless (VP8L) header: 14-bit width-1 and height-1 packed little-endian. */
export function webpLosslessBytes(width: number, height: number): Uint8Array {
  const bits = ((width - 1) & 0x3fff) + ((height - 1) & 0x3fff) * 0x4000;
  return riff("VP8L", [0x2f, ...uint32LittleEndian(bits), 0, 0, 0, 0, 0]);
}

/** WebP with an extended (VP8X) header: 24-bit canvas width-1 and height-1. */
export function webpExtendedBytes(width: number, height: number): Uint8Array {
  return riff("VP8X", [0, 0, 0, 0, ...uint24LittleEndian(width - 1), ...uint24LittleEndian(height - 1)]);
}

/** `data:<mediaType>;base64,<bytes>`. */
export function dataUri(mediaType: string, bytes: Uint8Array): string {
  return `data:${mediaType};base64,${encodeBase64(bytes)}`;
}

/** A valid small image of each kind, as data URIs. */
export const PNG_IMAGE: string = dataUri("image/png", pngBytes(640, 360));
export const JPEG_IMAGE: string = dataUri("image/jpeg", jpegBytes(1280, 720));
export const WEBP_IMAGE: string = dataUri("image/webp", webpLossyBytes(512, 512));
