import { describe, expect, it } from "vitest";
import { readImageSize, sniffImageFormat } from "./image-header.js";
import {
  jpegBytes,
  pngBytes,
  webpExtendedBytes,
  webpLosslessBytes,
  webpLossyBytes,
} from "./testing/images.js";

describe("sniffImageFormat", () => {
  it.each([
    ["png", pngBytes(1, 1)],
    ["jpeg", jpegBytes(1, 1)],
    ["webp", webpLossyBytes(1, 1)],
  ] as const)("recognizes %s by its magic numbers", (format, bytes) => {
    expect(sniffImageFormat(bytes)).toBe(format);
  });

  it.each([
    ["GIF", Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0])],
    ["a RIFF that is not WebP", Uint8Array.from([..."RIFF\0\0\0\0WAVE"].map((c) => c.charCodeAt(0)))],
    ["nothing", new Uint8Array(0)],
    ["half a PNG signature", pngBytes(1, 1).subarray(0, 4)],
  ])("refuses %s", (_name, bytes) => {
    expect(sniffImageFormat(bytes)).toBeUndefined();
  });
});

describe("readImageSize", () => {
  it.each([
    ["PNG IHDR", "png", pngBytes(640, 360), { width: 640, height: 360 }],
    ["PNG at the 32-bit edge", "png", pngBytes(0x80000000, 1), { width: 0x80000000, height: 1 }],
    ["JPEG baseline SOF0", "jpeg", jpegBytes(1280, 720), { width: 1280, height: 720 }],
    [
      "JPEG progressive SOF2 after DHT and fill bytes",
      "jpeg",
      jpegBytes(4096, 2160, { startOfFrame: 0xc2, extraSegments: true }),
      { width: 4096, height: 2160 },
    ],
    ["WebP lossy VP8", "webp", webpLossyBytes(512, 288), { width: 512, height: 288 }],
    ["WebP lossless VP8L", "webp", webpLosslessBytes(16383, 1), { width: 16383, height: 1 }],
    ["WebP lossless VP8L, small", "webp", webpLosslessBytes(300, 200), { width: 300, height: 200 }],
    ["WebP extended VP8X", "webp", webpExtendedBytes(5000, 4096), { width: 5000, height: 4096 }],
  ] as const)("reads %s", (_name, format, bytes, size) => {
    expect(readImageSize(bytes, format)).toEqual(size);
  });

  it.each([
    ["a PNG cut before IHDR ends", "png", pngBytes(10, 10).subarray(0, 20)],
    ["a PNG of width 0", "png", pngBytes(0, 10)],
    ["a JPEG with no frame header", "jpeg", Uint8Array.from([0xff, 0xd8, 0xff, 0xd9])],
    ["a JPEG cut inside its frame header", "jpeg", jpegBytes(10, 10).subarray(0, 25)],
    [
      "a JPEG whose scan starts before a frame header",
      "jpeg",
      Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0, 2]),
    ],
    ["a JPEG with garbage between segments", "jpeg", Uint8Array.from([0xff, 0xd8, 0x00, 0x00, 0x00, 0x00])],
    ["a JPEG with a segment length below 2", "jpeg", Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 1, 0, 0])],
    [
      "a WebP with an unknown chunk",
      "webp",
      Uint8Array.from([...webpLossyBytes(1, 1)].map((byte, index) => (index === 15 ? 0x41 : byte))),
    ],
    [
      "a lossy WebP without its start code",
      "webp",
      Uint8Array.from([...webpLossyBytes(1, 1)].map((byte, index) => (index === 23 ? 0 : byte))),
    ],
    [
      "a lossless WebP without its signature",
      "webp",
      Uint8Array.from([...webpLosslessBytes(1, 1)].map((byte, index) => (index === 20 ? 0 : byte))),
    ],
    ["a WebP cut short", "webp", webpLossyBytes(1, 1).subarray(0, 24)],
  ] as const)("gives up on %s", (_name, format, bytes) => {
    expect(readImageSize(bytes, format)).toBeUndefined();
  });
});
