import { drawTextLine, FONT_CELL_HEIGHT, FONT_CELL_WIDTH, toFontText } from "./bitmap-font.js";
import type { FrameSize } from "./output-geometry.js";

/** A straight (not premultiplied) RGBA image to composite over frames. */
export interface Overlay {
  rgba: Buffer;
  width: number;
  height: number;
}

/** Splits text into lines of at most `columns` characters, breaking at spaces where it can. */
export function wrapText(text: string, columns: number, maxLines: number): string[] {
  const lines: string[] = [];
  let rest = text.trim();
  while (rest.length > 0 && lines.length < maxLines) {
    if (rest.length <= columns) {
      lines.push(rest);
      rest = "";
      break;
    }
    let cut = rest.lastIndexOf(" ", columns);
    if (cut <= 0) cut = columns;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 && lines.length > 0) {
    // Long prompts end with an ellipsis so viewers know the caption is cut, not the prompt.
    const last = lines[lines.length - 1] ?? "";
    lines[lines.length - 1] = `${last.slice(0, Math.max(0, columns - 3))}...`;
  }
  return lines;
}

/**
 * The prompt as a caption band across the bottom of the frame: white text on
 * a translucent dark band, drawn with the built-in bitmap font so it shows on
 * machines without any installed font. Returns undefined for empty text.
 */
export function renderCaption(text: string, frameWidth: number, frameHeight: number): Overlay | undefined {
  const scale = Math.max(1, Math.floor(Math.min(frameWidth, frameHeight) / 360));
  const cellWidth = FONT_CELL_WIDTH * scale;
  const lineHeight = FONT_CELL_HEIGHT * scale;
  const padding = 4 * scale;
  const columns = Math.max(1, Math.floor((frameWidth - 2 * padding) / cellWidth));
  const maxLines = Math.max(1, Math.floor((frameHeight * 0.4 - 2 * padding) / lineHeight));
  const lines = wrapText(toFontText(text), columns, maxLines);
  if (lines.length === 0) return undefined;

  const width = frameWidth;
  const height = Math.min(frameHeight, lines.length * lineHeight + 2 * padding);
  const rgba = Buffer.alloc(width * height * 4);
  for (let offset = 0; offset < rgba.length; offset += 4) rgba[offset + 3] = 150;
  lines.forEach((line, index) => {
    drawTextLine(rgba, width, line, padding, padding + index * lineHeight, scale);
  });
  return { rgba, width, height };
}

/** Draws a caption band over the bottom of a raw RGB picture of `size`, in place (straight-alpha "over"). */
export function drawCaption(rgb: Buffer, size: FrameSize, caption: Overlay): void {
  const top = size.height - caption.height;
  for (let y = Math.max(0, -top); y < caption.height; y++) {
    const row = top + y;
    for (let x = 0; x < Math.min(caption.width, size.width); x++) {
      const source = (y * caption.width + x) * 4;
      const alpha = caption.rgba[source + 3]! / 255;
      if (alpha === 0) continue;
      const target = (row * size.width + x) * 3;
      for (let channel = 0; channel < 3; channel++) {
        const under = rgb[target + channel]!;
        rgb[target + channel] = Math.round(under + (caption.rgba[source + channel]! - under) * alpha);
      }
    }
  }
}
