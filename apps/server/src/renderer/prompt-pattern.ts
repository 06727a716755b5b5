import { createHash } from "node:crypto";
import type { FrameSize } from "./output-geometry.js";

/**
 * Everything the text-to-video animation takes from the prompt. Derived from
 * SHA-256 of the prompt, so one prompt always gives one video and any edit to
 * it changes colours, pattern and motion at once.
 */
export interface PromptLook {
  hues: [number, number, number];
  kind: "stripes" | "checks" | "rings" | "dots";
  angle: number;
  /** Pattern period as a fraction of the frame's short side. */
  period: number;
  /** Whether the turned pattern wipes in from the right (else from the left). */
  driftFromRight: boolean;
  /** Degrees the hue turns over the clip. */
  hueSpin: number;
  /** The orb's Lissajous path. */
  orbFrequencyX: number;
  orbFrequencyY: number;
  orbPhase: number;
  blobs: { x: number; y: number; radius: number; hue: number }[];
}

const KINDS: PromptLook["kind"][] = ["stripes", "checks", "rings", "dots"];

export function promptLook(prompt: string): PromptLook {
  const seed = createHash("sha256").update(prompt, "utf8").digest();
  const byte = (index: number): number => seed[index % seed.length] ?? 0;
  const unit = (index: number): number => byte(index) / 255;
  const first = Math.round(unit(0) * 360);
  const second = (first + 90 + Math.round(unit(1) * 180)) % 360;
  const third = (first + 180 + Math.round(unit(2) * 60)) % 360;
  return {
    hues: [first, second, third],
    kind: KINDS[byte(3) % KINDS.length] ?? "stripes",
    angle: Math.round(unit(4) * 180),
    period: 0.12 + unit(5) * 0.2,
    driftFromRight: byte(6) % 2 === 1,
    hueSpin: 60 + Math.round(unit(8) * 120),
    orbFrequencyX: 1 + (byte(9) % 3),
    orbFrequencyY: 1 + (byte(10) % 2),
    orbPhase: unit(11) * Math.PI * 2,
    blobs: Array.from({ length: 5 }, (_, index) => ({
      x: unit(12 + index * 4),
      y: unit(13 + index * 4),
      radius: 0.08 + unit(14 + index * 4) * 0.2,
      hue: Math.round(unit(15 + index * 4) * 360),
    })),
  };
}

type Rgb = [number, number, number];

/** CSS hsl() to RGB 0..255. */
function hsl(hue: number, saturation: number, lightness: number): Rgb {
  const s = saturation / 100;
  const l = lightness / 100;
  const k = (n: number) => (n + hue / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => 255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1)));
  return [channel(0), channel(8), channel(4)];
}

/** Whether a point, in the motif's turned coordinates, falls on the motif's ink. */
function onMotif(kind: number, u: number, v: number, period: number): boolean {
  const half = period / 2;
  if (kind === 1) return ((Math.floor(u / half) + Math.floor(v / half)) & 1) === 0;
  const inTileU = u - Math.floor(u / period) * period;
  if (kind === 0) return inTileU < half;
  const inTileV = v - Math.floor(v / period) * period;
  const squared = (inTileU - half) * (inTileU - half) + (inTileV - half) * (inTileV - half);
  if (kind === 2) return Math.abs(Math.sqrt(squared) - period * 0.4) < period * 0.06;
  return squared < period * period * 0.0625;
}

/**
 * The pattern, one RGB colour per 2x2 block of the frame (the grain of 4:2:0
 * chroma anyway): a picture of half the frame's width and height, raw RGB. A
 * diagonal gradient, the motif turned by the look's angle at 55% opacity, five
 * blobs at 45%; the first picture of a text video (its hue-turned copy the
 * last). A few milliseconds of plain arithmetic, where rasterising the same
 * shapes as SVG took several times that.
 */
export function renderPattern(look: PromptLook, frame: FrameSize): Buffer {
  const { width, height } = frame;
  const period = Math.max(8, Math.round(Math.min(width, height) * look.period));
  const kind = KINDS.indexOf(look.kind);
  const [fromR, fromG, fromB] = hsl(look.hues[0], 65, 35);
  const [toR, toG, toB] = hsl(look.hues[2], 65, 45);
  const [inkR, inkG, inkB] = hsl(look.hues[1], 80, 55);
  const radians = (look.angle * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const blobs = look.blobs.map((blob) => {
    const radius = blob.radius * Math.min(width, height);
    return { x: blob.x * width, y: blob.y * height, squared: radius * radius, colour: hsl(blob.hue, 70, 60) };
  });
  const blocks = Buffer.allocUnsafe((width / 2) * (height / 2) * 3);
  let offset = 0;
  // The blobs that reach a row, found once per row: most blocks then test one or two blobs, not five.
  const reaching: typeof blobs = [];
  for (let y = 0; y < height; y += 2) {
    // Sampled at each 2x2 block's centre.
    const cy = y + 1;
    reaching.length = 0;
    for (const blob of blobs) if ((cy - blob.y) * (cy - blob.y) < blob.squared) reaching.push(blob);
    for (let x = 0; x < width; x += 2) {
      const cx = x + 1;
      const along = (cx / width + cy / height) / 2;
      let r = fromR + (toR - fromR) * along;
      let g = fromG + (toG - fromG) * along;
      let b = fromB + (toB - fromB) * along;
      if (onMotif(kind, cx * cos + cy * sin, cy * cos - cx * sin, period)) {
        r += (inkR - r) * 0.55;
        g += (inkG - g) * 0.55;
        b += (inkB - b) * 0.55;
      }
      for (const blob of reaching) {
        if ((cx - blob.x) * (cx - blob.x) + (cy - blob.y) * (cy - blob.y) < blob.squared) {
          r += (blob.colour[0] - r) * 0.45;
          g += (blob.colour[1] - g) * 0.45;
          b += (blob.colour[2] - b) * 0.45;
        }
      }
      blocks[offset++] = r + 0.5;
      blocks[offset++] = g + 0.5;
      blocks[offset++] = b + 0.5;
    }
  }
  return blocks;
}
