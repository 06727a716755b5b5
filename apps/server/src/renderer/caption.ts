import { drawTextLine, FONT_CELL_HEIGHT, FONT_CELL_WIDTH, toFontText } from "./bitmap-font.js";
import type { StillPicture } from "./scene-graph.js";
import { greyLuma, NEUTRAL_CHROMA } from "./yuv-picture.js";

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

/**
 * Draws a caption band over the bottom of a yuv420p picture, in place
 * (straight-alpha "over"), once for each caption-wide copy side by side in
 * it. The band is white and black, greys only, so it is drawn on luma and
 * draws chroma towards neutral by each 2x2 block's mean alpha: what
 * converting the blend from RGB gives.
 */
export function drawCaption(picture: StillPicture, caption: Overlay): void {
  const { pixels, width, height } = picture;
  const luma = width * height;
  const top = height - caption.height;
  for (let left = 0; left + caption.width <= width; left += caption.width) {
    for (let y = Math.max(0, top); y < height; y += 1) {
      for (let x = 0; x < caption.width; x++) {
        const source = ((y - top) * caption.width + x) * 4;
        const alpha = caption.rgba[source + 3]! / 255;
        if (alpha === 0) continue;
        const at = y * width + left + x;
        const level = greyLuma(caption.rgba[source]!);
        pixels[at] = Math.round(pixels[at]! + (level - pixels[at]!) * alpha);
      }
    }
    for (let y = Math.max(0, top - (top % 2)); y < height; y += 2) {
      for (let x = 0; x < caption.width; x += 2) {
        let alpha = 0;
        for (let corner = 0; corner < 4; corner++) {
          const row = y + (corner >> 1) - top;
          if (row >= 0) alpha += caption.rgba[(row * caption.width + x + (corner & 1)) * 4 + 3]! / 255 / 4;
        }
        if (alpha === 0) continue;
        const at = luma + (y / 2) * (width / 2) + (left + x) / 2;
        for (const plane of [at, at + luma / 4]) {
          pixels[plane] = Math.round(pixels[plane]! + (NEUTRAL_CHROMA - pixels[plane]!) * alpha);
        }
      }
    }
  }
}
