import type { Renderer, RenderJob } from "@genvideo/engine";
import type { VideoFileStorage } from "../video/video-file-storage.js";
import { resolveFfmpegPath } from "./ffmpeg-path.js";
import { encodeH264 } from "./h264-encoder.js";
import { outputSize } from "./output-geometry.js";
import { sceneFor } from "./scene.js";

export const DEFAULT_BASE_WIDTH = 640;
export const DEFAULT_FPS = 24;
export const DEFAULT_DURATION_SECONDS = 5;
export const DEFAULT_ENCODER_NICENESS = 10;

export interface SyntheticRendererOptions {
  /** Where finished videos go; the renderer writes to its staging path, then `put`s. */
  storage: Pick<VideoFileStorage, "stagingPath" | "put" | "discard">;
  /** Width of a 16:9 video in pixels (9:16 is it turned upright, 1:1 keeps the pixel count). Default 640. */
  width?: number;
  /** Frames per second. Default 24. */
  fps?: number;
  /** Clip length in seconds. Default 5. */
  durationSeconds?: number;
  /** The ffmpeg binary. Default `FFMPEG_PATH`, else the one inside `@ffmpeg-installer/ffmpeg`. */
  ffmpegPath?: string;
  /**
   * Added to the server's nice value for the render's ffmpeg process (Unix),
   * so it gives way to the process answering requests on a busy machine.
   * Default 10; 0 leaves it at the server's.
   */
  encoderNiceness?: number;
}

/**
 * The reference server's renderer: a real H.264 MP4 per task whose frames
 * follow the request (see docs/renderer.md). The pictures a video is made of
 * are drawn once in this process (sharp, on libuv's thread pool); one ffmpeg
 * process, at a lower CPU priority, makes every frame from them with its own
 * filters and encodes them, so the event loop only starts it and waits.
 *
 * @example
 * const storage = new LocalVideoStorage({ dir, publicUrl, signingKey });
 * const renderer = createSyntheticRenderer({ storage });
 * const { videoKey } = await renderer.render({ taskId, request, aspectRatio: "16:9" }, signal);
 */
export function createSyntheticRenderer(options: SyntheticRendererOptions): Renderer {
  const baseWidth = options.width ?? DEFAULT_BASE_WIDTH;
  const fps = options.fps ?? DEFAULT_FPS;
  const durationSeconds = options.durationSeconds ?? DEFAULT_DURATION_SECONDS;
  if (!Number.isInteger(baseWidth) || baseWidth < 32 || baseWidth > 3840) {
    throw new RangeError(`Renderer width must be an integer from 32 to 3840, got ${baseWidth}`);
  }
  if (!(fps > 0 && fps <= 120)) throw new RangeError(`Renderer fps must be in (0, 120], got ${fps}`);
  if (!(durationSeconds > 0 && durationSeconds <= 600)) {
    throw new RangeError(`Renderer duration must be in (0, 600] seconds, got ${durationSeconds}`);
  }
  const frameCount = Math.max(1, Math.round(durationSeconds * fps));
  const ffmpegPath = options.ffmpegPath ?? resolveFfmpegPath();
  const niceness = options.encoderNiceness ?? DEFAULT_ENCODER_NICENESS;
  const { storage } = options;

  return {
    async render(job: RenderJob, signal: AbortSignal): Promise<{ videoKey: string }> {
      signal.throwIfAborted();
      const size = outputSize(job.aspectRatio, baseWidth);
      const outputPath = await storage.stagingPath(job.taskId);
      try {
        const scene = await sceneFor(job.request, { size, frameCount, fps });
        await encodeH264(scene, { ffmpegPath, size, fps, frameCount, outputPath, niceness }, signal);
        signal.throwIfAborted();
        return await storage.put(job.taskId, outputPath);
      } catch (error) {
        // Whatever stopped the render (deadline, bad image, encoder), leave no partial file behind.
        await storage.discard(outputPath);
        throw error;
      }
    },
  };
}
