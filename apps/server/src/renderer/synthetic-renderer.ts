import type { Renderer, RenderJob } from "@genvideo/engine";
import type { VideoFileStorage } from "../video/video-file-storage.js";
import { resolveFfmpegPath } from "./ffmpeg-path.js";
import { type EncodeOptions, encodeH264 } from "./h264-encoder.js";
import { outputSize } from "./output-geometry.js";
import { sceneFor } from "./scene.js";
import type { Scene } from "./scene-graph.js";

export const DEFAULT_BASE_WIDTH = 640;
export const DEFAULT_FPS = 24;
export const DEFAULT_DURATION_SECONDS = 5;
export const DEFAULT_ENCODER_NICENESS = 10;
/** Real time a render may take at the lowered priority before it starts again at the server's own. */
export const DEFAULT_PRIORITY_GRACE_MS = 500;
/** After a render had to start again, renders skip the lowered priority for this long: the machine is busy. */
const BUSY_MACHINE_MEMORY_MS = 10_000;

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
  /**
   * Real milliseconds a render may run at the lowered priority (`encoderNiceness`
   * and SCHED_IDLE) before it is restarted at the server's own priority. A
   * lowered priority cannot be raised again without privileges, and on a busy
   * machine it starves the render until its task times out. Default 500.
   */
  priorityGraceMs?: number;
}

/**
 * The reference server's renderer: a real H.264 MP4 per task whose frames
 * follow the request (see docs/renderer.md). The pictures a video is made of
 * are drawn once in this process (sharp, on libuv's thread pool); one ffmpeg
 * process, at a lower CPU priority while the machine has CPU to spare, makes
 * every frame from them with its own filters and encodes them, so the event
 * loop only starts it and waits.
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
  const graceMs = options.priorityGraceMs ?? DEFAULT_PRIORITY_GRACE_MS;
  const { storage } = options;
  let busyUntil = 0;

  /**
   * Encodes at the lowered priority while the machine has CPU to spare; a
   * render still running after the grace (other work takes the CPU) is killed
   * and encoded again at the server's priority, and so are the renders that
   * start soon after. A render costs a fraction of a second: a missed
   * deadline costs the task.
   */
  async function encodeInTime(scene: Scene, encode: Omit<EncodeOptions, "niceness">, signal: AbortSignal) {
    if (niceness !== 0 && Date.now() >= busyUntil) {
      const grace = new AbortController();
      const timer = setTimeout(() => grace.abort(new Error("priority grace over")), graceMs);
      try {
        await encodeH264(scene, { ...encode, niceness }, AbortSignal.any([signal, grace.signal]));
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!grace.signal.aborted) throw error;
        busyUntil = Date.now() + BUSY_MACHINE_MEMORY_MS;
      } finally {
        clearTimeout(timer);
      }
    }
    await encodeH264(scene, { ...encode, niceness: 0 }, signal);
  }

  return {
    async render(job: RenderJob, signal: AbortSignal): Promise<{ videoKey: string }> {
      signal.throwIfAborted();
      const size = outputSize(job.aspectRatio, baseWidth);
      const outputPath = await storage.stagingPath(job.taskId);
      try {
        const scene = await sceneFor(job.request, { size, frameCount, fps });
        await encodeInTime(scene, { ffmpegPath, size, fps, frameCount, outputPath }, signal);
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
