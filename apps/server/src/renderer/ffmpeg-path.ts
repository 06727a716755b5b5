import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * The ffmpeg to encode with: `FFMPEG_PATH` when set (an operator's own build),
 * else the static binary that `@ffmpeg-installer/ffmpeg` ships inside the npm
 * package, so a fresh machine needs no system package.
 */
export function resolveFfmpegPath(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.FFMPEG_PATH?.trim();
  if (configured) return configured;
  const installer = require("@ffmpeg-installer/ffmpeg") as { path: string };
  return installer.path;
}
