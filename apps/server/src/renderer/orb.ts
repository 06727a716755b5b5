import type { StillPicture } from "./scene-graph.js";

/**
 * A round, soft white glow as a straight-alpha RGBA sprite, `diameter`
 * pixels square: nearly opaque in the middle, fading out towards the rim.
 */
export function orbSprite(diameter: number): StillPicture {
  const pixels = Buffer.alloc(diameter * diameter * 4, 255);
  const radius = diameter / 2;
  for (let y = 0; y < diameter; y++) {
    for (let x = 0; x < diameter; x++) {
      const distance = Math.hypot(x + 0.5 - radius, y + 0.5 - radius) / radius;
      const opacity = distance >= 1 ? 0 : distance < 0.6 ? 0.95 - distance * 0.58 : (1 - distance) * 1.5;
      pixels[(y * diameter + x) * 4 + 3] = Math.round(opacity * 255);
    }
  }
  return { pixels, width: diameter, height: diameter, channels: 4 };
}
