import { describe, expect, it } from "vitest";
import { hueRotation, IDENTITY, yuv420FromBlocks, yuv420FromRgb } from "./yuv-picture.js";

/** An RGB picture of `width` x `height` filled with one colour. */
function solid(width: number, height: number, [red, green, blue]: [number, number, number]): Buffer {
  const rgb = Buffer.alloc(width * height * 3);
  for (let offset = 0; offset < rgb.length; offset += 3) rgb.set([red, green, blue], offset);
  return rgb;
}

/** The Y, Cb and Cr of the first pixel of a yuv420p picture. */
function firstSample(pixels: Buffer, width: number, height: number): [number, number, number] {
  const luma = width * height;
  return [pixels[0]!, pixels[luma]!, pixels[luma + luma / 4]!];
}

describe("yuv420FromRgb", () => {
  it.each([
    ["white", [255, 255, 255], [235, 128, 128]],
    ["black", [0, 0, 0], [16, 128, 128]],
    ["red", [255, 0, 0], [81, 90, 240]],
    ["green", [0, 255, 0], [145, 54, 34]],
    ["blue", [0, 0, 255], [41, 240, 110]],
  ] as const)("converts %s with BT.601 limited-range coefficients", (_, rgb, yuv) => {
    const picture = yuv420FromRgb(solid(4, 4, [...rgb]), { width: 4, height: 4 });
    expect(picture).toMatchObject({ width: 4, height: 4, pixelFormat: "yuv420p" });
    expect(picture.pixels.length).toBe(4 * 4 * 1.5);
    expect(firstSample(picture.pixels, 4, 4)).toEqual(yuv);
  });

  it("keeps luma per pixel and takes chroma from each 2x2 block", () => {
    // A 2x2 picture: white, black / black, white.
    const rgb = Buffer.from([255, 255, 255, 0, 0, 0, 0, 0, 0, 255, 255, 255]);
    const { pixels } = yuv420FromRgb(rgb, { width: 2, height: 2 });
    expect([...pixels]).toEqual([235, 16, 16, 235, 128, 128]);
  });

  it("converts a picture drawn in 2x2 blocks as it converts the same picture at full size", () => {
    // 2x2 blocks: red, green / blue, grey; as RGB at full size, each colour fills its block.
    const blocks = Buffer.from([200, 30, 30, 20, 180, 40, 30, 40, 220, 128, 128, 128]);
    const rgb = Buffer.alloc(4 * 4 * 3);
    for (let y = 0; y < 4; y++) {
      for (let x = 0; x < 4; x++) {
        const block = (Math.floor(y / 2) * 2 + Math.floor(x / 2)) * 3;
        blocks.copy(rgb, (y * 4 + x) * 3, block, block + 3);
      }
    }
    const size = { width: 4, height: 4 };
    expect(yuv420FromBlocks(blocks, size).pixels).toEqual(yuv420FromRgb(rgb, size).pixels);
  });

  it("puts one copy per colour matrix side by side", () => {
    const blocks = Buffer.from([200, 60, 30, 200, 60, 30]);
    const size = { width: 4, height: 2 };
    const plain = yuv420FromBlocks(blocks, size).pixels;
    const turned = yuv420FromBlocks(blocks, size, [hueRotation(120)]).pixels;
    const pair = yuv420FromBlocks(blocks, size, [IDENTITY, hueRotation(120)]);
    expect(pair).toMatchObject({ width: 8, height: 2 });
    // Luma rows of 8, then Cb and Cr rows of 4: each row is the plain copy, then the turned one.
    const halves = (from: number, length: number) => [
      [...pair.pixels.subarray(from, from + length)],
      [...pair.pixels.subarray(from + length, from + 2 * length)],
    ];
    expect(halves(0, 4)).toEqual([[...plain.subarray(0, 4)], [...turned.subarray(0, 4)]]);
    expect(halves(16, 2)).toEqual([[...plain.subarray(8, 10)], [...turned.subarray(8, 10)]]);
    expect(halves(20, 2)).toEqual([[...plain.subarray(10, 12)], [...turned.subarray(10, 12)]]);
    // Another hue, about as bright.
    expect(Math.hypot(turned[8]! - plain[8]!, turned[10]! - plain[10]!)).toBeGreaterThan(40);
    expect(Math.abs(turned[0]! - plain[0]!)).toBeLessThan(25);
  });

  it("turns no hue at 0 degrees and leaves greys grey at any angle", () => {
    const size = { width: 2, height: 2 };
    const blue = Buffer.from([90, 140, 200]);
    expect(yuv420FromBlocks(blue, size, [hueRotation(0)]).pixels).toEqual(
      yuv420FromBlocks(blue, size).pixels,
    );
    const grey = yuv420FromBlocks(Buffer.from([128, 128, 128]), size, [hueRotation(137)]).pixels;
    expect([grey[4], grey[5]]).toEqual([128, 128]);
  });

  it("smooths chroma down the columns, not luma", () => {
    // Four block rows: red, red, blue, blue.
    const blocks = Buffer.from([200, 30, 30, 200, 30, 30, 30, 40, 220, 30, 40, 220]);
    const { pixels } = yuv420FromBlocks(blocks, { width: 2, height: 8 });
    const luma = [...pixels.subarray(0, 16)];
    expect(new Set(luma.slice(0, 8)).size).toBe(1);
    const cb = [...pixels.subarray(16, 20)];
    // Cb of red is low, of blue high: the two middle rows move towards each other.
    expect(cb[0]).toBeLessThan(cb[1]!);
    expect(cb[1]).toBeLessThan(cb[2]!);
    expect(cb[2]).toBeLessThan(cb[3]!);
  });
});
