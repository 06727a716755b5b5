import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tinyMp4Bytes } from "@genvideo/engine";
import { expect, it } from "vitest";
import { probeVideo, topLevelBoxes } from "../../test/support/decode-video.js";

// The fixture renderer's (and the msw mock's) video; checked here, where ffprobe is at hand.
it("the engine's tiny MP4 is a valid, faststart H.264 video", async () => {
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
