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
 * An RGB picture (sizes even, as every frame size is) as yuv420p, once for
 * each colour matrix (applied to the RGB, clipped to 0..255), side by side
 * in one picture: the text scene's pattern and its hue-turned copy are
 * converted in one pass. Luma per pixel; chroma the mean of each 2x2 block,
 * then smoothed down the columns ([1, 6, 1] / 8 over the block rows), about
 * as ffmpeg's own conversion (swscale's bicubic) does: chroma with the
 * blocks' hard edges made the videos 5% larger. A block of four equal pixels
 * (all of the prompt's pattern but its caption) is converted once.
 */
export function yuv420FromRgb(
  rgb: Buffer,
  size: FrameSize,
  matrices: readonly ColourMatrix[] = [IDENTITY],
): StillPicture {
  const { height } = size;
  const copies = matrices.length;
  const width = size.width * copies;
  const luma = width * height;
  const chroma = luma / 4;
  const pixels = Buffer.allocUnsafe(luma + 2 * chroma);
  // The matrices one after the other, 9 numbers each, read by index in the loops below.
  const m = Float64Array.from(matrices.flat());
  const rowBytes = size.width * 3;
  for (let y = 0; y < height; y += 2) {
    let source = y * rowBytes;
    let target = y * width;
    let cb = luma + (y / 2) * (width / 2);
    for (let x = 0; x < size.width; x += 2, source += 6, target += 2, cb++) {
      const below = source + rowBytes;
      const red = rgb[source]!;
      const green = rgb[source + 1]!;
      const blue = rgb[source + 2]!;
      const flat =
        red === rgb[source + 3] &&
        green === rgb[source + 4] &&
        blue === rgb[source + 5] &&
        red === rgb[below] &&
        green === rgb[below + 1] &&
        blue === rgb[below + 2] &&
        red === rgb[below + 3] &&
        green === rgb[below + 4] &&
        blue === rgb[below + 5];
      for (let copy = 0, k = 0; copy < copies; copy++, k += 9) {
        const at = target + copy * size.width;
        let r: number;
        let g: number;
        let b: number;
        if (flat) {
          r = clip255(m[k]! * red + m[k + 1]! * green + m[k + 2]! * blue);
          g = clip255(m[k + 3]! * red + m[k + 4]! * green + m[k + 5]! * blue);
          b = clip255(m[k + 6]! * red + m[k + 7]! * green + m[k + 8]! * blue);
          // A typed array truncates what it stores: + 0.5 rounds.
          const level = 16.5 + Y_R * r + Y_G * g + Y_B * b;
          pixels[at] = level;
          pixels[at + 1] = level;
          pixels[at + width] = level;
          pixels[at + width + 1] = level;
        } else {
          r = 0;
          g = 0;
          b = 0;
          for (let corner = 0; corner < 4; corner++) {
            const from = (corner < 2 ? source : below) + (corner & 1) * 3;
            const cornerRed = rgb[from]!;
            const cornerGreen = rgb[from + 1]!;
            const cornerBlue = rgb[from + 2]!;
            const outRed = clip255(m[k]! * cornerRed + m[k + 1]! * cornerGreen + m[k + 2]! * cornerBlue);
            const outGreen = clip255(
              m[k + 3]! * cornerRed + m[k + 4]! * cornerGreen + m[k + 5]! * cornerBlue,
            );
            const outBlue = clip255(m[k + 6]! * cornerRed + m[k + 7]! * cornerGreen + m[k + 8]! * cornerBlue);
            pixels[at + (corner >> 1) * width + (corner & 1)] =
              16.5 + Y_R * outRed + Y_G * outGreen + Y_B * outBlue;
            r += outRed / 4;
            g += outGreen / 4;
            b += outBlue / 4;
          }
        }
        const at2 = cb + (copy * size.width) / 2;
        pixels[at2] = 128.5 + CB_R * r + CB_G * g + CB_B * b;
        pixels[at2 + chroma] = 128.5 + CR_R * r + CR_G * g + CR_B * b;
      }
    }
  }
  smoothColumns(pixels, luma, width / 2, height / 2);
  smoothColumns(pixels, luma + chroma, width / 2, height / 2);
  return { pixels, width, height, pixelFormat: "yuv420p" };
}

/** [1, 6, 1] / 8 down the columns of a plane at `offset`, in place; the edge rows repeat. */
function smoothColumns(pixels: Buffer, offset: number, width: number, rows: number): void {
  let above = Uint8Array.from(pixels.subarray(offset, offset + width));
  let current = new Uint8Array(width);
  for (let row = 0; row < rows; row++) {
    const start = offset + row * width;
    current.set(pixels.subarray(start, start + width));
    const below = row + 1 < rows ? start + width : start;
    for (let x = 0; x < width; x++)
      pixels[start + x] = (above[x]! + 6 * current[x]! + pixels[below + x]! + 4) >> 3;
    [above, current] = [current, above];
  }
}
