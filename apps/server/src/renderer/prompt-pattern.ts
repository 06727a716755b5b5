import { createHash } from "node:crypto";
import sharp from "sharp";
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

function hsl(hue: number, saturation: number, lightness: number): string {
  return `hsl(${hue},${saturation}%,${lightness}%)`;
}

function patternShapes(look: PromptLook, period: number): string {
  const half = period / 2;
  const ink = hsl(look.hues[1], 80, 55);
  switch (look.kind) {
    case "stripes":
      return `<rect width="${half}" height="${period}" fill="${ink}"/>`;
    case "checks":
      return `<rect width="${half}" height="${half}" fill="${ink}"/><rect x="${half}" y="${half}" width="${half}" height="${half}" fill="${ink}"/>`;
    case "rings":
      return `<circle cx="${half}" cy="${half}" r="${period * 0.4}" fill="none" stroke="${ink}" stroke-width="${period * 0.12}"/>`;
    case "dots":
      return `<circle cx="${half}" cy="${half}" r="${period * 0.25}" fill="${ink}"/>`;
  }
}

/** The pattern picture. Only shapes, no SVG text, so it needs no installed font. */
function patternCanvasSvg(look: PromptLook, canvas: FrameSize, frame: FrameSize): string {
  const period = Math.max(8, Math.round(Math.min(frame.width, frame.height) * look.period));
  const blobs = look.blobs
    .map(
      (blob) =>
        `<circle cx="${Math.round(blob.x * canvas.width)}" cy="${Math.round(blob.y * canvas.height)}" r="${Math.round(
          blob.radius * Math.min(canvas.width, canvas.height),
        )}" fill="${hsl(blob.hue, 70, 60)}" fill-opacity="0.45"/>`,
    )
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${canvas.width}" height="${canvas.height}">
<defs>
<linearGradient id="sky" x1="0" y1="0" x2="1" y2="1">
<stop offset="0" stop-color="${hsl(look.hues[0], 65, 35)}"/><stop offset="1" stop-color="${hsl(look.hues[2], 65, 45)}"/>
</linearGradient>
<pattern id="motif" width="${period}" height="${period}" patternUnits="userSpaceOnUse" patternTransform="rotate(${look.angle})">${patternShapes(look, period)}</pattern>
</defs>
<rect width="100%" height="100%" fill="url(#sky)"/>
<rect width="100%" height="100%" fill="url(#motif)" fill-opacity="0.55"/>
${blobs}
</svg>`;
}

/**
 * The pattern at frame size as raw RGB: the first picture of a text video
 * (ffmpeg turns its hues for the last). Rendered once per video.
 */
export async function renderPattern(look: PromptLook, frame: FrameSize): Promise<Buffer> {
  return sharp(Buffer.from(patternCanvasSvg(look, frame, frame)))
    .resize(frame.width, frame.height, { fit: "fill" })
    .removeAlpha()
    .raw()
    .toBuffer();
}
