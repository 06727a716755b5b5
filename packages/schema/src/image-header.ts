/**
 * Reads an image's format and pixel size from its first bytes: PNG IHDR, JPEG SOFn, WebP
 * VP8/VP8L/VP8X. Hand-written (a few dozen lines) so that the schema needs no image library
 * and runs anywhere; only headers are read, pixels are never decoded.
 */

export type ImageFormat = "png" | "jpeg" | "webp";

export interface ImageSize {
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The format the bytes' magic numbers announce, or `undefined` for anything else. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, PNG_SIGNATURE, 0)) return "png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return "webp";
  return undefined;
}

/** The width and height in the image's header, or `undefined` when the header is cut short or damaged. */
export function readImageSize(bytes: Uint8Array, format: ImageFormat): ImageSize | undefined {
  const size =
    format === "png" ? readPngSize(bytes) : format === "jpeg" ? readJpegSize(bytes) : readWebpSize(bytes);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}

function readPngSize(bytes: Uint8Array): ImageSize | undefined {
  // The IHDR chunk must come first: length (4), "IHDR", width (4), height (4), big-endian.
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== "IHDR") return undefined;
  return { width: uint32BigEndian(bytes, 16), height: uint32BigEndian(bytes, 20) };
}

function readJpegSize(bytes: Uint8Array): ImageSize | undefined {
  let offset = 2; // after SOI
  while (offset + 1 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    // Any number of 0xFF fill bytes may precede a marker.
    while (bytes[offset + 1] === 0xff) offset++;
    const marker = bytes[offset + 1];
    offset += 2;
    if (marker === undefined) return undefined;
    if (isStandaloneJpegMarker(marker)) continue;
    // End of image or start of scan before any frame header: there is no size to read.
    if (marker === 0xd9 || marker === 0xda) return undefined;
    if (offset + 2 > bytes.length) return undefined;
    const segmentLength = uint16BigEndian(bytes, offset);
    if (segmentLength < 2) return undefined;
    if (isStartOfFrame(marker)) {
      // Segment: length (2), sample precision (1), height (2), width (2).
      if (offset + 7 > bytes.length) return undefined;
      return { width: uint16BigEndian(bytes, offset + 5), height: uint16BigEndian(bytes, offset + 3) };
    }
    offset += segmentLength;
  }
  return undefined;
}

function isStandaloneJpegMarker(marker: number): boolean {
  return marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7);
}

// SOF0..SOF15 share C0..CF with DHT (C4), JPG (C8) and DAC (CC), which carry no size.
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function readWebpSize(bytes: Uint8Array): ImageSize | undefined {
  if (bytes.length < 30) return undefined;
  const chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8 ") {
    // Lossy key frame: 3-byte frame tag, start code 9D 01 2A, then 14-bit width and height.
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) return undefined;
    return { width: uint16LittleEndian(bytes, 26) & 0x3fff, height: uint16LittleEndian(bytes, 28) & 0x3fff };
  }
  if (chunk === "VP8L") {
    // Lossless: signature 0x2F, then width-1 and height-1 as 14-bit fields packed little-endian.
    if (bytes[20] !== 0x2f) return undefined;
    const bits = uint16LittleEndian(bytes, 21) + uint16LittleEndian(bytes, 23) * 0x10000;
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    // Extended: flags (1), reserved (3), canvas width-1 (3), canvas height-1 (3), little-endian.
    return { width: uint24LittleEndian(bytes, 24) + 1, height: uint24LittleEndian(bytes, 27) + 1 };
  }
  return undefined;
}

function startsWith(bytes: Uint8Array, expected: readonly number[], offset: number): boolean {
  return expected.every((byte, index) => bytes[offset + index] === byte);
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

function byteAt(bytes: Uint8Array, offset: number): number {
  return bytes[offset] ?? 0;
}

function uint16BigEndian(bytes: Uint8Array, offset: number): number {
  return byteAt(bytes, offset) * 0x100 + byteAt(bytes, offset + 1);
}

function uint32BigEndian(bytes: Uint8Array, offset: number): number {
  return uint16BigEndian(bytes, offset) * 0x10000 + uint16BigEndian(bytes, offset + 2);
}

function uint16LittleEndian(bytes: Uint8Array, offset: number): number {
  return byteAt(bytes, offset) + byteAt(bytes, offset + 1) * 0x100;
}

function uint24LittleEndian(bytes: Uint8Array, offset: number): number {
  return uint16LittleEndian(bytes, offset) + byteAt(bytes, offset + 2) * 0x10000;
}
