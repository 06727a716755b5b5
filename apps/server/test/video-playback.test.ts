/**
 * The promise behind every `video_url`: the MP4 plays in a browser. A real
 * server renders two tasks; headless Chromium (Debian's package, driven by
 * playwright-core, as in packages/msw/test) loads each signed URL in a
 * `<video>` element, and we check what a player sees: metadata, size,
 * duration, decoded pixels that match ffmpeg's decode of the same frame, a
 * seek, playback to the end, and no media error.
 *
 * Debian's chromium is built with its proprietary codecs on (H.264 through
 * the bundled FFmpeg), which the first test states, so that a browser
 * without H.264 fails here by name instead of with an obscure media error.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHROMIUM_PATH, launchChromium } from "../src/testing/browser.js";
import { createTask, waitForTerminal } from "./support/api.js";
import { decodeFrame, meanAbsoluteError } from "./support/decode-video.js";
import { useServer } from "./support/use-server.js";

/** The renderer's profile and level for 640x360 at 24 fps (High, level 3.0). */
const H264_HIGH = 'video/mp4; codecs="avc1.64001e"';
const FPS = 24;

const server = useServer({ env: { GENVIDEO_TIME_SCALE: "30", GENVIDEO_RATE_LIMITS: "off" } });
let browser: Browser;
let page: Page;
const videos: Record<"landscape" | "portrait", string> = { landscape: "", portrait: "" };

beforeAll(async () => {
  const [landscape, portrait] = await Promise.all([
    createTask(server, { prompt: "a paper boat on a pond, seen from above" }),
    createTask(server, { prompt: "a tall waterfall", aspect_ratio: "9:16" }),
  ]);
  browser = await launchChromium();
  page = await browser.newPage();
  // The page comes from the server's own origin, so the video's pixels can be read back from a canvas.
  await page.goto(`${server.url}/healthz`);
  for (const [name, taskId] of [
    ["landscape", landscape],
    ["portrait", portrait],
  ] as const) {
    const done = await waitForTerminal(server, taskId!, 40_000);
    expect(done.status).toBe("completed");
    videos[name] = done.video_url as string;
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

it("runs a Chromium that can decode H.264 High in MP4", async () => {
  const support = await page.evaluate(
    (types) => types.map((type) => document.createElement("video").canPlayType(type)),
    [H264_HIGH, "video/mp4"],
  );
  expect(
    support,
    `${CHROMIUM_PATH} ${browser.version()} cannot play H.264: the renderer's MP4s need it`,
  ).toEqual(["probably", "maybe"]);
});

interface Playback {
  readyState: number;
  videoWidth: number;
  videoHeight: number;
  duration: number;
  /** The frame shown after seeking, as a PNG data URL. */
  seekedFrame: string;
  /** The media time of the frame presented after the seek (requestVideoFrameCallback). */
  presentedAt: number;
  currentTimeAfterSeek: number;
  endedAt: number;
  errors: string[];
}

/** Loads `src` in a `<video>`, seeks to `seekTo`, grabs that frame, then plays to the end at 8x. */
function play(src: string, seekTo: number): Promise<Playback> {
  return page.evaluate(
    async ({ src, seekTo }) => {
      const errors: string[] = [];
      const video = document.createElement("video");
      video.muted = true;
      video.preload = "auto";
      video.addEventListener("error", () =>
        errors.push(`MediaError ${video.error?.code}: ${video.error?.message ?? ""}`),
      );
      const next = (event: string) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`no ${event} in 15 s; ${errors.join("; ")}`)),
            15_000,
          );
          video.addEventListener(
            event,
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      const loaded = next("loadeddata");
      video.src = src;
      document.body.append(video);
      await loaded;
      const { readyState, videoWidth, videoHeight, duration } = video;

      // "seeked" can come before the new frame reaches the compositor, and drawImage then copies
      // the old one (seen on a busy machine): wait for the frame presented at the new position too.
      const presented = new Promise<number>((resolve) =>
        video.requestVideoFrameCallback((_now, metadata) => resolve(metadata.mediaTime)),
      );
      const seeked = next("seeked");
      video.currentTime = seekTo;
      await seeked;
      const presentedAt = await presented;
      const canvas = document.createElement("canvas");
      canvas.width = videoWidth;
      canvas.height = videoHeight;
      canvas.getContext("2d")?.drawImage(video, 0, 0);
      const seekedFrame = canvas.toDataURL("image/png");
      const currentTimeAfterSeek = video.currentTime;

      const ended = next("ended");
      video.playbackRate = 8;
      await video.play();
      await ended;
      return {
        readyState,
        videoWidth,
        videoHeight,
        duration,
        seekedFrame,
        presentedAt,
        currentTimeAfterSeek,
        endedAt: video.currentTime,
        errors,
      };
    },
    { src, seekTo },
  );
}

it("plays the 16:9 video: size, duration, the seeked frame as ffmpeg decodes it, to the end", async () => {
  // The middle of frame 60: the seek lands on it, whatever rounding the browser does.
  const frame = 60;
  const playback = await play(videos.landscape, (frame + 0.5) / FPS);
  expect(playback).toMatchObject({ errors: [], videoWidth: 640, videoHeight: 360 });
  expect(playback.readyState).toBeGreaterThanOrEqual(2); // HAVE_CURRENT_DATA: a frame is decoded
  expect(playback.duration).toBeCloseTo(5, 1);
  expect(playback.currentTimeAfterSeek).toBeCloseTo((frame + 0.5) / FPS, 2);
  expect(playback.presentedAt).toBeCloseTo(frame / FPS, 2); // the frame drawn below is frame 60's
  expect(playback.endedAt).toBeCloseTo(playback.duration, 1);

  // What the browser drew is the frame ffmpeg decodes at that index, up to colour conversion.
  const file = join(server.dataDir, "landscape.mp4");
  await writeFile(file, Buffer.from(await (await fetch(videos.landscape)).arrayBuffer()));
  const shown = await sharp(Buffer.from(playback.seekedFrame.split(",")[1]!, "base64"))
    .removeAlpha()
    .raw()
    .toBuffer();
  const decoded = await decodeFrame(file, frame, 640, 360);
  const error = meanAbsoluteError(shown, decoded, 640);
  expect(error).toBeLessThan(4);
  // And not a frame far away in the clip: the seek really moved the picture.
  expect(meanAbsoluteError(shown, await decodeFrame(file, 0, 640, 360), 640)).toBeGreaterThan(error + 2);
}, 30_000);

it("plays the 9:16 video upright, with no error", async () => {
  const playback = await play(videos.portrait, 1);
  expect(playback).toMatchObject({ errors: [], videoWidth: 360, videoHeight: 640 });
  expect(playback.readyState).toBeGreaterThanOrEqual(2);
  expect(playback.duration).toBeCloseTo(5, 1);
  expect(playback.endedAt).toBeCloseTo(playback.duration, 1);
}, 30_000);
