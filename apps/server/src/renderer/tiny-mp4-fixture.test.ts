import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
// The engine exports this fixture for the msw package; checked here, where ffprobe is at hand.
import { tinyMp4Bytes } from "../../../../packages/engine/src/fixtures/tiny-mp4.js";
import { probeVideo, topLevelBoxes } from "./testing/decode-video.js";

it("the engine's tiny MP4 fixture is a valid, faststart H.264 video", async () => {
  const dir = await mkdtemp(join(tmpdir(), "genvideo-fixture-"));
  try {
    const bytes = tinyMp4Bytes();
    const path = join(dir, "tiny.mp4");
    await writeFile(path, bytes);
    expect(await probeVideo(path)).toMatchObject({
      codecName: "h264",
      pixelFormat: "yuv420p",
      width: 64,
      height: 36,
      frameCount: 8,
      durationSeconds: 1,
    });
    const boxes = topLevelBoxes(Buffer.from(bytes));
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
