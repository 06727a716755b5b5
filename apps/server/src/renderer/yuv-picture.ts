/**
 * Pictures as the encoder takes them: planar YUV 4:2:0 (`yuv420p`), BT.601
 * limited range, the colours the video is tagged with. Converted here, once
 * per picture, ffmpeg's filters take them as they come: when ffmpeg
 * converted RGB pictures itself (swscale) and turned their hues in RGB, that
 * was about a third of its filters' CPU.
 */
import type { FrameSize } from "./output-geometry.js";
import type { StillPicture } from "./scene-graph.js";

// BT.601, limited range: Y 16 to 235, Cb and Cr 16 to 240 around 128, per unit of 0..255 RGB.
const Y_R = 65.481 / 255;
const Y_G = 128.553 / 255;
const Y_B = 24.966 / 255;
const CB_R = -37.797 / 255;
const CB_G = -74.203 / 255;
const CB_B = 112 / 255;
const CR_R = 112 / 255;
const CR_G = -93.786 / 255;
const CR_B = -18.214 / 255;

/** Neutral chroma (Cb and Cr of any grey) in BT.601 limited range. */
export const NEUTRAL_CHROMA = 128;

/** The luma of a grey at `level` (0..255 RGB) in BT.601 limited range: 16 (black) to 235 (white). */
export function greyLuma(level: number): number {
  return 16 + (219 * level) / 255;
}

// One pixel's BT.601 conversion, + 0.5 each: a typed array truncates what it stores, so that rounds.
const lumaOf = (r: number, g: number, b: number) => 16.5 + Y_R * r + Y_G * g + Y_B * b;
const cbOf = (r: number, g: number, b: number) => NEUTRAL_CHROMA + 0.5 + CB_R * r + CB_G * g + CB_B * b;
const crOf = (r: number, g: number, b: number) => NEUTRAL_CHROMA + 0.5 + CR_R * r + CR_G * g + CR_B * b;

/** A 3x3 matrix applied to RGB (0..255) before the conversion, row by row: red, green, blue out. */
export type ColourMatrix = readonly [number, number, number, number, number, number, number, number, number];

/** Colours as they are. */
export const IDENTITY: ColourMatrix = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/**
 * The RGB matrix that turns hues by `degrees` and keeps luminance (the
 * `hueRotate` of SVG's feColorMatrix).
 */
export function hueRotation(degrees: number): ColourMatrix {
  const cos = Math.cos((degrees * Math.PI) / 180);
  const sin = Math.sin((degrees * Math.PI) / 180);
  return [
    0.213 + cos * 0.787 - sin * 0.213,
    0.715 - cos * 0.715 - sin * 0.715,
    0.072 - cos * 0.072 + sin * 0.928,
    0.213 - cos * 0.213 + sin * 0.143,
    0.715 + cos * 0.285 + sin * 0.14,
    0.072 - cos * 0.072 - sin * 0.283,
    0.213 - cos * 0.213 - sin * 0.787,
    0.715 - cos * 0.715 + sin * 0.715,
    0.072 + cos * 0.928 + sin * 0.072,
  ];
}

function clip255(value: number): number {
  return Math.min(Math.max(value, 0), 255);
}

/**
 * A picture drawn in 2x2 blocks (`blocks`: raw RGB at half the frame's width
 * and height, one colour a block, as the prompt's pattern is drawn) as
 * yuv420p, once for each colour matrix (applied to the RGB, clipped to
 * 0..255), side by side in one picture: the text scene's pattern and its
 * hue-turned copy in one pass, each block converted once.
 */
export function yuv420FromBlocks(
  blocks: Buffer,
  size: FrameSize,
  matrices: readonly ColourMatrix[] = [IDENTITY],
): StillPicture {
  const picture = allocate(size, matrices.length);
  const { pixels, width } = picture;
  const luma = width * size.height;
  const chroma = luma / 4;
  // The matrices one after the other, 9 numbers each, read by index in the loop below.
  const m = Float64Array.from(matrices.flat());
  let source = 0;
  for (let y = 0; y < size.height; y += 2) {
    let target = y * width;
    let cb = luma + (y / 2) * (width / 2);
    for (let x = 0; x < size.width; x += 2, source += 3, target += 2, cb++) {
      const red = blocks[source]!;
      const green = blocks[source + 1]!;
      const blue = blocks[source + 2]!;
      for (let copy = 0, k = 0; copy < matrices.length; copy++, k += 9) {
        const r = clip255(m[k]! * red + m[k + 1]! * green + m[k + 2]! * blue);
        const g = clip255(m[k + 3]! * red + m[k + 4]! * green + m[k + 5]! * blue);
        const b = clip255(m[k + 6]! * red + m[k + 7]! * green + m[k + 8]! * blue);
        const at = target + copy * size.width;
        const level = lumaOf(r, g, b);
        pixels[at] = level;
        pixels[at + 1] = level;
        pixels[at + width] = level;
        pixels[at + width + 1] = level;
        const chromaAt = cb + (copy * size.width) / 2;
        pixels[chromaAt] = cbOf(r, g, b);
        pixels[chromaAt + chroma] = crOf(r, g, b);
      }
    }
  }
  return smoothChroma(picture);
}

/** A raw RGB picture (a fitted image) as yuv420p: luma per pixel, chroma from each 2x2 block's mean. */
export function yuv420FromRgb(rgb: Buffer, size: FrameSize): StillPicture {
  const picture = allocate(size, 1);
  const { pixels, width, height } = picture;
  const luma = width * height;
  const rowBytes = width * 3;
  let cb = luma;
  for (let y = 0; y < height; y += 2) {
    let source = y * rowBytes;
    let target = y * width;
    for (let x = 0; x < width; x += 2, source += 6, target += 2, cb++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let corner = 0; corner < 4; corner++) {
        const at = source + (corner >> 1) * rowBytes + (corner & 1) * 3;
        const red = rgb[at]!;
        const green = rgb[at + 1]!;
        const blue = rgb[at + 2]!;
        pixels[target + (corner >> 1) * width + (corner & 1)] = lumaOf(red, green, blue);
        r += red / 4;
        g += green / 4;
        b += blue / 4;
      }
      pixels[cb] = cbOf(r, g, b);
      pixels[cb + luma / 4] = crOf(r, g, b);
    }
  }
  return smoothChroma(picture);
}

/** A yuv420p picture of `copies` frames side by side, its pixels to be written. */
function allocate(size: FrameSize, copies: number): StillPicture {
  const width = size.width * copies;
  return {
    pixels: Buffer.allocUnsafe(width * size.height * 1.5),
    width,
    height: size.height,
    pixelFormat: "yuv420p",
  };
}

/**
 * Chroma smoothed down the columns ([1, 6, 1] / 8 over the block rows), about
 * as ffmpeg's own conversion (swscale's bicubic) does: chroma with the
 * blocks' hard edges made the videos 5% larger.
 */
function smoothChroma(picture: StillPicture): StillPicture {
  const luma = picture.width * picture.height;
  smoothColumns(picture.pixels, luma, picture.width / 2, picture.height / 2);
  smoothColumns(picture.pixels, luma + luma / 4, picture.width / 2, picture.height / 2);
  return picture;
}

/** [1, 6, 1] / 8 down the columns of a plane at `offset`, in place; the edge rows repeat. */
function smoothColumns(pixels: Buffer, offset: number, width: number, rows: number): void {
  for (let x = 0; x < width; x++) {
    let at = offset + x;
    let above = pixels[at]!;
    let current = above;
    for (let row = 0; row < rows; row++, at += width) {
      const below = row + 1 < rows ? pixels[at + width]! : current;
      pixels[at] = (above + 6 * current + below + 4) >> 3;
      above = current;
      current = below;
    }
  }
}
