import type { StillPicture } from "./scene-graph.js";
import { greyLuma, NEUTRAL_CHROMA } from "./yuv-picture.js";

/** White in BT.601 limited range: the brightest luma, neutral chroma. */
const WHITE_LUMA = greyLuma(255);

/**
 * A round, soft white glow as a straight-alpha yuva420p sprite, `diameter`
 * pixels square (even): nearly opaque in the middle, fading out towards the rim.
 */
export function orbSprite(diameter: number): StillPicture {
  const area = diameter * diameter;
  const pixels = Buffer.alloc(area + area / 2 + area);
  pixels.fill(WHITE_LUMA, 0, area);
  pixels.fill(NEUTRAL_CHROMA, area, area + area / 2);
  const alpha = area + area / 2;
  const radius = diameter / 2;
  for (let y = 0; y < diameter; y++) {
    for (let x = 0; x < diameter; x++) {
      const distance = Math.hypot(x + 0.5 - radius, y + 0.5 - radius) / radius;
      const opacity = distance >= 1 ? 0 : distance < 0.6 ? 0.95 - distance * 0.58 : (1 - distance) * 1.5;
      pixels[alpha + y * diameter + x] = Math.round(opacity * 255);
    }
  }
  return { pixels, width: diameter, height: diameter, pixelFormat: "yuva420p" };
}
