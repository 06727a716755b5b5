import { describe, expect, it } from "vitest";
import { decodeImageDataUri, inspectImageDataUri } from "./image-data-uri.js";
import { IMAGE_MAX_BYTES } from "./limits.js";
import {
  dataUri,
  jpegBytes,
  pngBytes,
  webpExtendedBytes,
  webpLosslessBytes,
  webpLossyBytes,
} from "./testing/images.js";

describe("inspectImageDataUri", () => {
  it.each([
    ["PNG", "image/png", pngBytes(640, 360), 640, 360],
    ["JPEG", "image/jpeg", jpegBytes(1280, 720), 1280, 720],
    ["WebP lossy", "image/webp", webpLossyBytes(512, 512), 512, 512],
    ["WebP lossless", "image/webp", webpLosslessBytes(300, 200), 300, 200],
    ["WebP extended", "image/webp", webpExtendedBytes(4096, 4096), 4096, 4096],
    ["JPEG at the side limit", "image/jpeg", jpegBytes(4096, 1), 4096, 1],
  ] as const)("accepts a %s and decodes it", (_name, mediaType, bytes, width, height) => {
    const value = dataUri(mediaType, bytes);
    expect(inspectImageDataUri(value)).toEqual({
      ok: true,
      mediaType,
      byteLength: bytes.length,
      width,
      height,
    });
    expect(decodeImageDataUri(value)).toEqual(bytes);
  });

  const oversize = `data:image/png;base64,${"A".repeat(Math.ceil((IMAGE_MAX_BYTES + 1) / 3) * 4)}`;
  it.each([
    [
      "a URL",
      "https://example.com/a.png",
      "Expected an image data URI of the form data:image/<jpeg|png|webp>;base64,<data>.",
    ],
    [
      "plain text",
      "hello",
      "Expected an image data URI of the form data:image/<jpeg|png|webp>;base64,<data>.",
    ],
    [
      "a GIF",
      "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
      'The data URI declares "image/gif"; use image/jpeg, image/png or image/webp.',
    ],
    [
      "no media type",
      "data:;base64,AAAA",
      "The data URI declares no media type; use image/jpeg, image/png or image/webp.",
    ],
    [
      "an upper-case media type",
      "data:IMAGE/PNG;base64,AAAA",
      'The data URI declares "IMAGE/PNG"; use image/jpeg, image/png or image/webp.',
    ],
    [
      "percent-encoded data",
      "data:image/png,%89PNG",
      "The image data must be base64-encoded: data:image/<jpeg|png|webp>;base64,<data>.",
    ],
    [
      "extra parameters",
      "data:image/png;name=a.png;base64,AAAA",
      "The image data must be base64-encoded: data:image/<jpeg|png|webp>;base64,<data>.",
    ],
    ["empty data", "data:image/png;base64,", "The image data is empty."],
    [
      "broken base64",
      "data:image/png;base64,iVBOR w0K",
      "The image data is not valid base64 (standard alphabet, no spaces).",
    ],
    [
      "base64url",
      "data:image/png;base64,iVBO-w0_",
      "The image data is not valid base64 (standard alphabet, no spaces).",
    ],
    ["more than 10 MiB", oversize, "The image is 10.01 MiB; at most 10 MiB is allowed."],
    [
      "a JPEG declared as PNG",
      dataUri("image/png", jpegBytes(10, 10)),
      "The data URI declares image/png but the bytes are a JPEG image.",
    ],
    [
      "a PNG declared as WebP",
      dataUri("image/webp", pngBytes(10, 10)),
      "The data URI declares image/webp but the bytes are a PNG image.",
    ],
    [
      "a WebP declared as JPEG",
      dataUri("image/jpeg", webpLossyBytes(10, 10)),
      "The data URI declares image/jpeg but the bytes are a WebP image.",
    ],
    [
      "bytes of no image",
      dataUri("image/jpeg", Uint8Array.from([1, 2, 3, 4])),
      "The data URI declares image/jpeg but the bytes are not a JPEG image.",
    ],
    [
      "a damaged header",
      dataUri("image/png", pngBytes(10, 10).subarray(0, 18)),
      "The width and height of the image cannot be read: its PNG header is damaged.",
    ],
    [
      "a PNG too wide",
      dataUri("image/png", pngBytes(4097, 100)),
      "The image is 4097×100 px; each side may be at most 4096 px.",
    ],
    [
      "a JPEG too tall",
      dataUri("image/jpeg", jpegBytes(100, 5000)),
      "The image is 100×5000 px; each side may be at most 4096 px.",
    ],
    [
      "a WebP too large",
      dataUri("image/webp", webpExtendedBytes(8000, 8000)),
      "The image is 8000×8000 px; each side may be at most 4096 px.",
    ],
  ])("refuses %s", (_name, value, message) => {
    expect(inspectImageDataUri(value)).toEqual({ ok: false, message });
  });

  it("accepts an image of exactly 10 MiB", () => {
    // Built as base64 directly (a 36-byte PNG header, zeros, one last byte) to keep the test fast.
    const header = dataUri("image/png", Uint8Array.from([...pngBytes(1, 1), 0, 0, 0]));
    const zeros = "AAAA".repeat((IMAGE_MAX_BYTES - 36 - 1) / 3);
    const value = `${header}${zeros}AA==`;
    expect(inspectImageDataUri(value)).toEqual({
      ok: true,
      mediaType: "image/png",
      byteLength: IMAGE_MAX_BYTES,
      width: 1,
      height: 1,
    });
  });

  it("finds a JPEG frame header behind more than 64 KiB of metadata", () => {
    const frame = jpegBytes(800, 600);
    const metadata = new Uint8Array(3 * 65533 + 3 * 4);
    for (let segment = 0; segment < 3; segment++) {
      const start = segment * (65533 + 4);
      metadata.set([0xff, 0xe1, 0xff, 0xff], start); // APP1 of the largest length, 65535
    }
    const bytes = new Uint8Array([...frame.subarray(0, 2), ...metadata, ...frame.subarray(2)]);
    expect(inspectImageDataUri(dataUri("image/jpeg", bytes))).toMatchObject({
      ok: true,
      width: 800,
      height: 600,
    });
  });
});

describe("inspectImageDataUri on hostile headers", () => {
  // A field of the documented size (a 10 MiB image as base64 is about 14 million characters) made
  // of header parameters: a pattern with a repeated group overflowed the stack on it.
  const fieldSize = 14_000_000;

  it.each([
    ["millions of parameters", `data:${";".repeat(fieldSize)}`],
    ["parameters, then a comma", `data:image/png${";a".repeat(fieldSize / 2)},AAAA`],
    ["no comma at all", `data:image/png${"x".repeat(fieldSize)}`],
  ])("refuses %s with a sentence, in linear time", (_name, value) => {
    const started = performance.now();
    const result = inspectImageDataUri(value);
    const elapsedMs = performance.now() - started;
    expect(result).toEqual({ ok: false, message: expect.stringContaining("data URI") });
    // A linear pass over 14 MB takes milliseconds; the generous bound only catches a backtracking
    // or recursive parse coming back.
    expect(elapsedMs).toBeLessThan(1_000);
  });

  it("still names a declared type that is not an image's, and asks for base64", () => {
    expect(inspectImageDataUri("data:text/plain;base64,AAAA")).toMatchObject({
      message: expect.stringContaining('"text/plain"'),
    });
    expect(inspectImageDataUri("data:;base64,AAAA")).toMatchObject({
      message: expect.stringContaining("no media type"),
    });
    expect(inspectImageDataUri("data:image/png;charset=utf-8;base64,AAAA")).toMatchObject({
      message: expect.stringContaining("base64-encoded"),
    });
    expect(inspectImageDataUri("data:image/png,AAAA")).toMatchObject({
      message: expect.stringContaining("base64-encoded"),
    });
  });
});
