import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFrame } from "../../test/support/decode-video.js";
import { resolveFfmpegPath } from "./ffmpeg-path.js";
import { encodeH264 } from "./h264-encoder.js";
import { type StillPicture, wipeScene } from "./scene-graph.js";
import { hueRotation, IDENTITY, yuv420FromBlocks } from "./yuv-picture.js";

const size = { width: 64, height: 36 };
const frameCount = 12;
const RED: [number, number, number] = [200, 40, 40];
/** RED with its hue turned half way round. */
const TURNED = hueRotation(180);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "genvideo-scene-graph-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A sprite that shows nothing: the wipe alone is on screen. */
const invisible: StillPicture = {
  pixels: Buffer.alloc(4 * 4 * 2.5),
  width: 4,
  height: 4,
  pixelFormat: "yuva420p",
};

/** For each column of an RGB frame, whether it is nearer the turned colour than RED (mean over rows). */
function turnedColumns(frame: Buffer): boolean[] {
  return Array.from({ length: size.width }, (_, x) => {
    let red = 0;
    for (let y = 0; y < size.height; y++) red += frame[(y * size.width + x) * 3]!;
    // RED is bright in red, its turned copy dark in red.
    return red / size.height < 120;
  });
}

describe("wipeScene", () => {
  it.each([false, true])(
    "wipes the turned picture in (from the right: %s), column by column",
    async (fromRight) => {
      const blocks = Buffer.alloc((size.width / 2) * (size.height / 2) * 3);
      for (let offset = 0; offset < blocks.length; offset += 3) blocks.set(RED, offset);
      const pair = yuv420FromBlocks(blocks, size, fromRight ? [TURNED, IDENTITY] : [IDENTITY, TURNED]);
      const look = { fromRight, orbFrequencyX: 1, orbFrequencyY: 1, orbPhase: 0 };
      const scene = wipeScene(pair, invisible, look, { size, frameCount, fps: 12 });
      const outputPath = join(dir, `wipe-${fromRight}.mp4`);
      const options = { ffmpegPath: resolveFfmpegPath(), size, fps: 12, frameCount, outputPath, niceness: 0 };
      await encodeH264(scene, options, new AbortController().signal);

      const frame = (index: number) => decodeFrame(outputPath, index, size.width, size.height);
      const [first, middle, last] = await Promise.all([frame(0), frame(6), frame(frameCount - 1)]);
      expect(turnedColumns(first).every((turned) => !turned)).toBe(true);
      expect(turnedColumns(last).every((turned) => turned)).toBe(true);
      // Half way: the turned picture covers the side it comes from up to one column, and nothing else.
      const columns = turnedColumns(middle);
      const fromItsSide = fromRight ? [...columns].reverse() : columns;
      const edge = fromItsSide.indexOf(false);
      expect(edge).toBeGreaterThan(size.width / 4);
      expect(edge).toBeLessThan((size.width * 3) / 4);
      expect(fromItsSide.slice(edge).every((turned) => !turned)).toBe(true);
    },
  );
});
