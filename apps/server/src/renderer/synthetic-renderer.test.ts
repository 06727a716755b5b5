import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AspectRatio, GenerationRequest } from "@genvideo/schema";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeFrame,
  meanAbsoluteError,
  probeVideo,
  topLevelBoxes,
} from "../../test/support/decode-video.js";
import { LocalVideoStorage } from "../video/local-video-storage.js";
import { createSyntheticRenderer, type SyntheticRendererOptions } from "./synthetic-renderer.js";

// H.264 at CRF 20 plus 4:2:0 chroma subsampling loses a little; on smooth test
// images the decoded frame stays within this mean error of the fitted input.
const FRAME_MATCH_BOUND = 6;

let dir: string;
let storage: LocalVideoStorage;
let taskNumber = 0;

function nextTaskId(): string {
  taskNumber++;
  return `00000000-0000-4000-8000-${String(taskNumber).padStart(12, "0")}`;
}

async function imageDataUri(svg: string, format: "png" | "jpeg" = "png"): Promise<string> {
  const bytes = await sharp(Buffer.from(svg)).toFormat(format).toBuffer();
  return `data:image/${format};base64,${bytes.toString("base64")}`;
}

function sceneSvg(width: number, height: number, from: string, to: string, shape: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>${shape}</svg>`;
}

async function fitted(dataUri: string, width: number, height: number): Promise<Buffer> {
  const bytes = Buffer.from(dataUri.split(",")[1] ?? "", "base64");
  return sharp(bytes).resize(width, height, { fit: "cover" }).removeAlpha().raw().toBuffer();
}

/** A validated request as the engine hands it over (defaults filled in). */
function requestOf(fields: Partial<GenerationRequest> & { prompt: string }): GenerationRequest {
  return { model_type: "gen-3-fast", aspect_ratio: "16:9", ...fields };
}

async function renderFile(
  fields: Partial<GenerationRequest> & { prompt: string },
  aspectRatio: AspectRatio = "16:9",
  options: Partial<Omit<SyntheticRendererOptions, "storage">> = {},
): Promise<string> {
  const renderer = createSyntheticRenderer({ storage, width: 160, fps: 12, durationSeconds: 1, ...options });
  const { videoKey } = await renderer.render(
    { taskId: nextTaskId(), request: requestOf({ ...fields, aspect_ratio: aspectRatio }), aspectRatio },
    new AbortController().signal,
  );
  return storage.pathOf(videoKey);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "genvideo-renderer-"));
  storage = new LocalVideoStorage({ dir, publicUrl: "http://127.0.0.1:8787", signingKey: "test-secret" });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("synthetic renderer output format", () => {
  it.each([
    ["16:9", 160, 90],
    ["9:16", 90, 160],
    ["1:1", 120, 120],
  ] as const)(
    "renders %s as a %ix%i H.264 yuv420p MP4 with faststart",
    async (aspectRatio, width, height) => {
      const path = await renderFile({ prompt: "a lighthouse at dusk" }, aspectRatio);
      const probe = await probeVideo(path);
      expect(probe).toMatchObject({
        codecName: "h264",
        profile: "High",
        pixelFormat: "yuv420p",
        width,
        height,
        frameCount: 12,
        frameRate: "12/1",
      });
      expect(probe.formatName).toContain("mp4");
      expect(probe.durationSeconds).toBeCloseTo(1, 1);
      const boxes = topLevelBoxes(await readFile(path));
      expect(boxes.indexOf("moov")).toBeGreaterThanOrEqual(0);
      expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
    },
  );

  it("renders the default clip: 640x360, 5 s at 24 fps (120 frames)", { timeout: 60_000 }, async () => {
    const path = await renderFile({ prompt: "default clip" }, "16:9", {
      width: 640,
      fps: 24,
      durationSeconds: 5,
    });
    const probe = await probeVideo(path);
    expect(probe).toMatchObject({ codecName: "h264", pixelFormat: "yuv420p", width: 640, height: 360 });
    expect(probe.frameCount).toBe(120);
    expect(probe.durationSeconds).toBeCloseTo(5, 1);
  });
});

describe("text to video", () => {
  it("gives the same frames for the same prompt and different frames for different prompts", async () => {
    const [first, again, other] = await Promise.all([
      renderFile({ prompt: "a red fox in the snow" }),
      renderFile({ prompt: "a red fox in the snow" }),
      renderFile({ prompt: "a submarine under the ice" }),
    ]);
    const frames = await Promise.all([first, again, other].map((path) => decodeFrame(path, 5, 160, 90)));
    expect(meanAbsoluteError(frames[0]!, frames[1]!, 160)).toBe(0);
    expect(meanAbsoluteError(frames[0]!, frames[2]!, 160)).toBeGreaterThan(20);
  });

  it("animates: frames change over the clip", async () => {
    const path = await renderFile({ prompt: "moving pictures" });
    const [start, end] = await Promise.all([decodeFrame(path, 0, 160, 90), decodeFrame(path, 11, 160, 90)]);
    expect(meanAbsoluteError(start, end, 160)).toBeGreaterThan(10);
  });
});

describe("frame to frame", () => {
  it("starts on the fitted start image and ends on the fitted end image", async () => {
    const start = await imageDataUri(
      sceneSvg(400, 300, "#e04a1f", "#f6c24b", '<circle cx="120" cy="150" r="70" fill="#2a9d8f"/>'),
      "jpeg",
    );
    const end = await imageDataUri(
      sceneSvg(
        300,
        400,
        "#1d3557",
        "#a8dadc",
        '<rect x="80" y="120" width="140" height="160" fill="#f1faee"/>',
      ),
    );
    const path = await renderFile({ prompt: "sunset to night", start_frame: start, end_frame: end });
    const [first, middle, last] = await Promise.all([
      decodeFrame(path, 0, 160, 90),
      decodeFrame(path, 6, 160, 90),
      decodeFrame(path, 11, 160, 90),
    ]);
    const [startFitted, endFitted] = await Promise.all([fitted(start, 160, 90), fitted(end, 160, 90)]);
    expect(meanAbsoluteError(first, startFitted, 160)).toBeLessThan(FRAME_MATCH_BOUND);
    expect(meanAbsoluteError(last, endFitted, 160)).toBeLessThan(FRAME_MATCH_BOUND);
    // The middle is a blend: far from both ends.
    expect(meanAbsoluteError(middle, startFitted, 160)).toBeGreaterThan(15);
    expect(meanAbsoluteError(middle, endFitted, 160)).toBeGreaterThan(15);
  });
});

describe("reference images", () => {
  it("shows each reference image in turn", async () => {
    const colours = ["#d62828", "#2a9d8f", "#3a0ca3"];
    const images = await Promise.all(
      colours.map((colour) => imageDataUri(sceneSvg(200, 200, colour, colour, ""))),
    );
    const path = await renderFile({ prompt: "three looks", reference_images: images }, "16:9", { fps: 24 });
    // 24 frames in three shares of 8: the middle of each share shows only its image.
    const frames = await Promise.all([3, 11, 19].map((index) => decodeFrame(path, index, 160, 90)));
    const expected = await Promise.all(images.map((image) => fitted(image, 160, 90)));
    // The caption band covers the bottom rows; compare the picture above it.
    const picture = { from: 0, to: 40 };
    frames.forEach((frame, index) => {
      expect(meanAbsoluteError(frame, expected[index]!, 160, picture)).toBeLessThan(FRAME_MATCH_BOUND);
    });
  });
});

describe("timings the default clip does not have", () => {
  it("renders more reference images than frames: every frame still comes out", async () => {
    const images = await Promise.all(
      ["#d62828", "#2a9d8f", "#3a0ca3", "#f4a261"].map((colour) =>
        imageDataUri(sceneSvg(64, 64, colour, colour, "")),
      ),
    );
    const path = await renderFile({ prompt: "four looks", reference_images: images }, "16:9", { fps: 2 });
    expect(await probeVideo(path)).toMatchObject({ codecName: "h264", frameCount: 2 });
  });

  it.each([
    ["a frame rate that is not whole", { fps: 12.5 }, 13],
    ["a single frame", { fps: 1 }, 1],
  ] as const)("renders %s", async (_, timing, frames) => {
    const path = await renderFile({ prompt: "odd timing" }, "1:1", timing);
    expect(await probeVideo(path)).toMatchObject({
      codecName: "h264",
      width: 120,
      height: 120,
      frameCount: frames,
    });
  });
});

describe("priority", () => {
  it("encodes again at the server's priority when the render outlasts its grace at the lowered one", async () => {
    const renderer = createSyntheticRenderer({
      storage,
      width: 160,
      fps: 12,
      durationSeconds: 1,
      priorityGraceMs: 0,
    });
    // The first render is stopped at once and encoded again; the second skips the lowered priority.
    for (const prompt of ["in time", "in time again"]) {
      const { videoKey } = await renderer.render(
        { taskId: nextTaskId(), request: requestOf({ prompt }), aspectRatio: "16:9" },
        new AbortController().signal,
      );
      expect(await probeVideo(storage.pathOf(videoKey))).toMatchObject({ codecName: "h264", frameCount: 12 });
    }
    expect((await readdir(join(dir, ".staging"))).filter((name) => name.endsWith(".mp4"))).toEqual([]);
  });
});

describe("failures", () => {
  it("rejects a broken input image and leaves no file behind", async () => {
    const broken = `data:image/png;base64,${Buffer.from("not really a png").toString("base64")}`;
    await expect(renderFile({ prompt: "x", start_frame: broken, end_frame: broken })).rejects.toThrow(
      /start_frame could not be decoded/,
    );
    const staged = await readdir(join(dir, ".staging"));
    expect(staged).toEqual([]);
  });

  it("rejects when the encoder cannot run (FFMPEG_PATH pointing nowhere)", async () => {
    const renderer = createSyntheticRenderer({
      storage,
      width: 160,
      fps: 12,
      durationSeconds: 1,
      ffmpegPath: "/nonexistent/ffmpeg",
    });
    await expect(
      renderer.render(
        { taskId: nextTaskId(), request: requestOf({ prompt: "x" }), aspectRatio: "1:1" },
        new AbortController().signal,
      ),
    ).rejects.toThrow(/ffmpeg/);
  });

  it("stops on abort: ffmpeg is killed, the promise rejects and no partial file remains", async () => {
    const renderer = createSyntheticRenderer({ storage, width: 640, fps: 24, durationSeconds: 60 });
    const controller = new AbortController();
    const taskId = nextTaskId();
    const rendering = renderer.render(
      { taskId, request: requestOf({ prompt: "long" }), aspectRatio: "16:9" },
      controller.signal,
    );
    await waitFor(async () => (await encodersFor(taskId)).length > 0);
    const pids = await encodersFor(taskId);
    controller.abort(new DOMException("deadline", "AbortError"));
    await expect(rendering).rejects.toThrow("deadline");
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect((await readdir(join(dir, ".staging"))).filter((name) => name.includes(taskId))).toEqual([]);
    expect((await readdir(dir)).filter((name) => name.includes(taskId))).toEqual([]);
  });
});

/** ffmpeg processes writing this task's video (Linux /proc). */
async function encodersFor(taskId: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (commandLine.includes("ffmpeg") && commandLine.includes(taskId)) pids.push(Number(entry));
  }
  return pids;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
