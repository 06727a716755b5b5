import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { resolveFfmpegPath } from "../../src/renderer/ffmpeg-path.js";

// Test support: decode what the renderer produced with tools from npm packages only.
const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ffprobePath = (require("@ffprobe-installer/ffprobe") as { path: string }).path;

export interface VideoProbe {
  formatName: string;
  codecName: string;
  profile: string;
  pixelFormat: string;
  width: number;
  height: number;
  durationSeconds: number;
  frameCount: number;
  frameRate: string;
}

export async function probeVideo(path: string): Promise<VideoProbe> {
  const { stdout } = await run(ffprobePath, [
    ...["-v", "error", "-count_frames", "-select_streams", "v:0"],
    ...[
      "-show_entries",
      "stream=codec_name,profile,pix_fmt,width,height,nb_frames,nb_read_frames,r_frame_rate:format=format_name,duration",
    ],
    ...["-of", "json", path],
  ]);
  const parsed = JSON.parse(stdout) as {
    streams: Record<string, string | number>[];
    format: Record<string, string>;
  };
  const stream = parsed.streams[0] ?? {};
  return {
    formatName: String(parsed.format.format_name),
    codecName: String(stream.codec_name),
    profile: String(stream.profile),
    pixelFormat: String(stream.pix_fmt),
    width: Number(stream.width),
    height: Number(stream.height),
    durationSeconds: Number(parsed.format.duration),
    frameCount: Number(stream.nb_read_frames),
    frameRate: String(stream.r_frame_rate),
  };
}

/** Decodes frame `index` (0-based) to raw RGB24. */
export async function decodeFrame(
  path: string,
  index: number,
  width: number,
  height: number,
): Promise<Buffer> {
  const { stdout } = await run(
    resolveFfmpegPath(),
    [
      ...["-v", "error", "-i", path, "-vf", `select=eq(n\\,${index})`, "-vsync", "0", "-frames:v", "1"],
      ...["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"],
    ],
    { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 },
  );
  if (stdout.length !== width * height * 3) throw new Error(`frame ${index}: got ${stdout.length} bytes`);
  return stdout;
}

/** Mean absolute difference per channel value (0..255) over the rows [fromRow, toRow). */
export function meanAbsoluteError(
  first: Buffer,
  second: Buffer,
  width: number,
  rows?: { from: number; to: number },
): number {
  const start = (rows?.from ?? 0) * width * 3;
  const end = rows ? rows.to * width * 3 : first.length;
  let total = 0;
  for (let offset = start; offset < end; offset++)
    total += Math.abs((first[offset] ?? 0) - (second[offset] ?? 0));
  return total / (end - start);
}

/** Top-level MP4 boxes in order, to check that `moov` precedes `mdat` (faststart). */
export function topLevelBoxes(bytes: Buffer): string[] {
  const boxes: string[] = [];
  let offset = 0;
  while (offset + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(offset);
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    if (size === 1) size = Number(bytes.readBigUInt64BE(offset + 8));
    if (size < 8) break;
    boxes.push(type);
    offset += size;
  }
  return boxes;
}
