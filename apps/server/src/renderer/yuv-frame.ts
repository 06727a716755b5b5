/**
 * Frames as planar YUV 4:2:0 (I420, BT.601 limited range), the format the
 * encoder takes in: ffmpeg then converts nothing, and the pipe carries half
 * the bytes of RGB. Every picture of a video (pattern, fitted images, their
 * captions) is converted once; a frame is then made from those with row
 * copies, a blend or a small sprite, so making one costs little, and frames
 * that differ only where something moves cost the encoder little too.
 */
import type { Overlay } from "./caption.js";
import type { FrameSize } from "./output-geometry.js";

/** Bytes of one I420 frame: a full-size luma plane and two quarter-size chroma planes. */
export function yuvFrameBytes(size: FrameSize): number {
  return size.width * size.height + 2 * (size.width / 2) * (size.height / 2);
}

/** Raw RGB to I420 with BT.601 limited-range coefficients (what ffmpeg's swscale uses); chroma averaged over 2x2. */
export function rgbToYuv420(rgb: Buffer, size: FrameSize): Buffer {
  const { width, height } = size;
  const out = Buffer.allocUnsafe(yuvFrameBytes(size));
  const chromaWidth = width / 2;
  const uPlane = width * height;
  const vPlane = uPlane + chromaWidth * (height / 2);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * 3;
      const r = rgb[offset]!;
      const g = rgb[offset + 1]!;
      const b = rgb[offset + 2]!;
      out[y * width + x] = Math.round(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255);
    }
  }
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of CORNERS) {
        const offset = ((y + dy) * width + x + dx) * 3;
        r += rgb[offset]!;
        g += rgb[offset + 1]!;
        b += rgb[offset + 2]!;
      }
      r /= 4;
      g /= 4;
      b /= 4;
      const chroma = (y / 2) * chromaWidth + x / 2;
      out[uPlane + chroma] = Math.round(128 + (-37.797 * r - 74.203 * g + 112 * b) / 255);
      out[vPlane + chroma] = Math.round(128 + (112 * r - 93.786 * g - 18.214 * b) / 255);
    }
  }
  return out;
}

const CORNERS = [
  [0, 0],
  [1, 0],
  [0, 1],
  [1, 1],
] as const;

/** Draws a straight-alpha RGBA overlay onto raw RGB in place, its top-left corner at (left, top). */
export function drawOverlay(rgb: Buffer, size: FrameSize, overlay: Overlay, left: number, top: number): void {
  for (let y = 0; y < overlay.height; y++) {
    const row = top + y;
    if (row < 0 || row >= size.height) continue;
    for (let x = 0; x < overlay.width; x++) {
      const column = left + x;
      if (column < 0 || column >= size.width) continue;
      const source = (y * overlay.width + x) * 4;
      const alpha = overlay.rgba[source + 3]! / 255;
      if (alpha === 0) continue;
      const target = (row * size.width + column) * 3;
      for (let channel = 0; channel < 3; channel++) {
        const under = rgb[target + channel]!;
        rgb[target + channel] = Math.round(under + (overlay.rgba[source + channel]! - under) * alpha);
      }
    }
  }
}

/**
 * A wipe: columns left of `boundary` from `revealed`, the rest from `covered`
 * (`boundary` even, so both chroma planes split at the same place).
 */
export function wipe(covered: Buffer, revealed: Buffer, boundary: number, size: FrameSize): Buffer {
  const out = Buffer.allocUnsafe(covered.length);
  const copyRows = (plane: number, rows: number, rowWidth: number, split: number) => {
    for (let row = 0; row < rows; row++) {
      const start = plane + row * rowWidth;
      revealed.copy(out, start, start, start + split);
      covered.copy(out, start + split, start + split, start + rowWidth);
    }
  };
  const chromaWidth = size.width / 2;
  const chromaHeight = size.height / 2;
  const uPlane = size.width * size.height;
  copyRows(0, size.height, size.width, boundary);
  copyRows(uPlane, chromaHeight, chromaWidth, boundary / 2);
  copyRows(uPlane + chromaWidth * chromaHeight, chromaHeight, chromaWidth, boundary / 2);
  return out;
}

/** `from` blended towards `to` by `amount` (0..1), sample by sample; the conversion is affine, so this is the RGB blend. */
export function blendYuv(from: Buffer, to: Buffer, amount: number): Buffer {
  if (amount <= 0) return from;
  if (amount >= 1) return to;
  const out = Buffer.allocUnsafe(from.length);
  const weight = Math.round(amount * 256);
  for (let index = 0; index < from.length; index++) {
    const a = from[index]!;
    out[index] = a + (((to[index]! - a) * weight + 128) >> 8);
  }
  return out;
}

/** A round, soft white glow: per-pixel opacity (0..1) of a `diameter` square. */
export function orbOpacity(diameter: number): Float32Array {
  const opacity = new Float32Array(diameter * diameter);
  const radius = diameter / 2;
  for (let y = 0; y < diameter; y++) {
    for (let x = 0; x < diameter; x++) {
      const distance = Math.hypot(x + 0.5 - radius, y + 0.5 - radius) / radius;
      opacity[y * diameter + x] =
        distance >= 1 ? 0 : distance < 0.6 ? 0.95 - distance * 0.58 : (1 - distance) * 1.5;
    }
  }
  return opacity;
}

/** Lays the glow over an I420 frame in place, towards white (Y 235, neutral chroma); `left` and `top` even. */
export function drawOrb(
  frame: Buffer,
  size: FrameSize,
  opacity: Float32Array,
  diameter: number,
  left: number,
  top: number,
) {
  const { width, height } = size;
  const chromaWidth = width / 2;
  const uPlane = width * height;
  const vPlane = uPlane + chromaWidth * (height / 2);
  for (let y = 0; y < diameter && top + y < height; y++) {
    for (let x = 0; x < diameter && left + x < width; x++) {
      const alpha = opacity[y * diameter + x]!;
      if (alpha === 0) continue;
      const luma = (top + y) * width + left + x;
      frame[luma] = Math.round(frame[luma]! + (235 - frame[luma]!) * alpha);
      if (x % 2 === 0 && y % 2 === 0) {
        const chroma = ((top + y) / 2) * chromaWidth + (left + x) / 2;
        frame[uPlane + chroma] = Math.round(
          frame[uPlane + chroma]! + (128 - frame[uPlane + chroma]!) * alpha,
        );
        frame[vPlane + chroma] = Math.round(
          frame[vPlane + chroma]! + (128 - frame[vPlane + chroma]!) * alpha,
        );
      }
    }
  }
}
