import {
  FONT_CELL_HEIGHT,
  FONT_CELL_WIDTH,
  FONT_COVERAGE_BASE64,
  FONT_FIRST_CODE,
  FONT_LAST_CODE,
} from "./bitmap-font-data.js";

export { FONT_CELL_HEIGHT, FONT_CELL_WIDTH };

const coverage = Buffer.from(FONT_COVERAGE_BASE64, "base64");
const GLYPH_PIXELS = FONT_CELL_WIDTH * FONT_CELL_HEIGHT;
const REPLACEMENT = "?".charCodeAt(0);

/**
 * The font covers printable ASCII only: accents are dropped (é → e) and typographic
 * dashes and quotes become ASCII, so most Latin text stays readable, and anything else shows as "?" rather than vanishing.
 */
export function toFontText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u2018\u2019\u201a\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
    .replace(/\u2026/g, "...")
    .replace(/\s+/g, " ")
    .replace(/[^\x20-\x7e]/g, "?");
}

/** Coverage 0..255 of one pixel of a glyph cell. */
function glyphCoverage(code: number, x: number, y: number): number {
  const glyph = code >= FONT_FIRST_CODE && code <= FONT_LAST_CODE ? code - FONT_FIRST_CODE : REPLACEMENT - 32;
  const nibble = glyph * GLYPH_PIXELS + y * FONT_CELL_WIDTH + x;
  const byte = coverage[nibble >> 1] ?? 0;
  const level = nibble % 2 === 0 ? byte >> 4 : byte & 0x0f;
  return level * 17;
}

/**
 * Draws `line` into an RGBA buffer at (left, top), scaled by an integer
 * factor, blending white text by its coverage over what is there.
 */
export function drawTextLine(
  target: Buffer,
  targetWidth: number,
  line: string,
  left: number,
  top: number,
  scale: number,
): void {
  const targetHeight = target.length / 4 / targetWidth;
  for (let index = 0; index < line.length; index++) {
    const code = line.charCodeAt(index);
    const cellLeft = left + index * FONT_CELL_WIDTH * scale;
    for (let y = 0; y < FONT_CELL_HEIGHT * scale; y++) {
      const row = top + y;
      if (row < 0 || row >= targetHeight) continue;
      for (let x = 0; x < FONT_CELL_WIDTH * scale; x++) {
        const column = cellLeft + x;
        if (column < 0 || column >= targetWidth) continue;
        const alpha = glyphCoverage(code, Math.floor(x / scale), Math.floor(y / scale));
        if (alpha === 0) continue;
        // Straight-alpha "over": white text of this coverage over whatever the band holds.
        const offset = (row * targetWidth + column) * 4;
        const source = alpha / 255;
        const under = (target[offset + 3] ?? 0) / 255;
        const outAlpha = source + under * (1 - source);
        for (let channel = 0; channel < 3; channel++) {
          const underColor = target[offset + channel] ?? 0;
          target[offset + channel] = Math.round(
            (255 * source + underColor * under * (1 - source)) / outAlpha,
          );
        }
        target[offset + 3] = Math.round(outAlpha * 255);
      }
    }
  }
}
