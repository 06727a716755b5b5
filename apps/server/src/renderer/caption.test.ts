import { describe, expect, it } from "vitest";
import { toFontText } from "./bitmap-font.js";
import { renderCaption, wrapText } from "./caption.js";
import { outputSize } from "./output-geometry.js";

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
