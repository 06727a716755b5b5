import type { AspectRatio } from "@genvideo/schema";

export interface FrameSize {
  width: number;
  height: number;
}

/** H.264 with yuv420p halves chroma in both directions, so both sides must be even. */
function even(value: number): number {
  return Math.max(2, Math.round(value / 2) * 2);
}

/**
 * The output size for an aspect ratio. `baseWidth` is the width of a 16:9
 * video (default 640, so 640x360); 9:16 is the same frame turned upright
 * (360x640) and 1:1 keeps the same pixel count (480x480), so every form costs
 * about the same to render.
 */
export function outputSize(aspectRatio: AspectRatio, baseWidth: number): FrameSize {
  const long = even(baseWidth);
  const short = even((baseWidth * 9) / 16);
  switch (aspectRatio) {
    case "16:9":
      return { width: long, height: short };
    case "9:16":
      return { width: short, height: long };
    case "1:1": {
      const side = even(Math.sqrt(long * short));
      return { width: side, height: side };
    }
  }
}
