import { describe, expect, it } from "vitest";
import { toFontText } from "./bitmap-font.js";
import { drawCaption, renderCaption, wrapText } from "./caption.js";
import { outputSize } from "./output-geometry.js";
import { IDENTITY, yuv420FromBlocks } from "./yuv-picture.js";

describe("caption", () => {
  it("draws visible text with the built-in font (no installed font needed)", () => {
    const caption = renderCaption("Hello", 200, 100)!;
    let bright = 0;
    for (let offset = 0; offset < caption.rgba.length; offset += 4)
      if ((caption.rgba[offset] ?? 0) > 200) bright++;
    expect(bright).toBeGreaterThan(50);
    expect(renderCaption("   ", 200, 100)).toBeUndefined();
  });

  it("wraps at spaces and marks a cut caption with an ellipsis", () => {
    expect(wrapText("the quick brown fox", 10, 5)).toEqual(["the quick", "brown fox"]);
    expect(wrapText("the quick brown fox jumps", 10, 2)).toEqual(["the quick", "brown f..."]);
    expect(wrapText("abcdefghijkl", 5, 5)).toEqual(["abcde", "fghij", "kl"]);
  });

  it("draws the band over the bottom of each copy in a yuv420p picture: darker, white text, greyer", () => {
    const size = { width: 200, height: 100 };
    const blocks = Buffer.alloc(100 * 50 * 3);
    for (let offset = 0; offset < blocks.length; offset += 3) blocks.set([40, 160, 200], offset);
    const picture = yuv420FromBlocks(blocks, size, [IDENTITY, IDENTITY]);
    const before = Buffer.from(picture.pixels);
    const caption = renderCaption("Hello", size.width, size.height)!;
    drawCaption(picture, caption);
    const { pixels, width } = picture;
    const top = size.height - caption.height;
    // Above the band nothing changes.
    expect(pixels.subarray(0, top * width)).toEqual(before.subarray(0, top * width));
    for (const left of [0, size.width]) {
      const band = (x: number, y: number) => pixels[(top + y) * width + left + x]!;
      // The band's padding is darker than the picture; the text is near white.
      expect(band(1, 1)).toBeLessThan(before[0]! - 40);
      let bright = 0;
      for (let y = 0; y < caption.height; y++) for (let x = 0; x < 60; x++) if (band(x, y) > 200) bright++;
      expect(bright).toBeGreaterThan(20);
      // Chroma under the band is drawn towards grey (128).
      const cb = width * size.height + ((size.height - 2) / 2) * (width / 2) + left / 2 + 40;
      expect(Math.abs(pixels[cb]! - 128)).toBeLessThan(Math.abs(before[cb]! - 128));
    }
  });

  it("maps text to the font's ASCII repertoire", () => {
    expect(toFontText("café — “ok”\n日本")).toBe('cafe - "ok" ??');
  });
});

describe("output geometry", () => {
  it("gives even sizes per aspect ratio from the 16:9 width", () => {
    expect(outputSize("16:9", 640)).toEqual({ width: 640, height: 360 });
    expect(outputSize("9:16", 640)).toEqual({ width: 360, height: 640 });
    expect(outputSize("1:1", 640)).toEqual({ width: 480, height: 480 });
    const odd = outputSize("16:9", 250);
    expect(odd.width % 2).toBe(0);
    expect(odd.height % 2).toBe(0);
  });
});
