import { type ChildProcessByStdio, spawn } from "node:child_process";
import { setPriority } from "node:os";
import type { Readable, Writable } from "node:stream";
import type { FrameSource } from "./frame-sources.js";
import type { FrameSize } from "./output-geometry.js";

export interface EncodeOptions {
  ffmpegPath: string;
  size: FrameSize;
  fps: number;
  frameCount: number;
  outputPath: string;
  /** Added to ffmpeg's nice value, so encoding yields the CPU to request handling. */
  niceness: number;
  /** Frames produced ahead of the one being written, to keep the encoder busy. */
  lookahead?: number;
}

/** ffmpeg failed or could not start; the render fails as GENERATION_FAILED. */
export class EncoderError extends Error {
  override name = "EncoderError";
}

const STDERR_KEPT = 4096;

export function ffmpegArguments(options: EncodeOptions): string[] {
  const { size, fps, frameCount, outputPath } = options;
  return [
    ...["-hide_banner", "-loglevel", "error"],
    ...[
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-s",
      `${size.width}x${size.height}`,
      "-framerate",
      String(fps),
    ],
    ...["-i", "pipe:0", "-frames:v", String(frameCount)],
    // High profile yuv420p is what every browser's <video> decodes; faststart puts
    // the index first so playback starts before the download ends.
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-profile:v", "high", "-pix_fmt", "yuv420p"],
    // swscale converts with BT.601 limited range; say so, so players convert back the same way.
    ...["-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m"],
    ...["-color_range", "tv", "-movflags", "+faststart", "-f", "mp4", "-y", outputPath],
  ];
}

/**
 * Encodes the frames to an H.264 MP4 at `outputPath` in an ffmpeg child
 * process. Aborting kills ffmpeg and rejects with the signal's reason once the
 * process has exited (so the caller can delete the partial file safely).
 */
export function encodeH264(frames: FrameSource, options: EncodeOptions, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    let child: ChildProcessByStdio<Writable, null, Readable>;
    try {
      child = spawn(options.ffmpegPath, ffmpegArguments(options), { stdio: ["pipe", "ignore", "pipe"] });
    } catch (error) {
      reject(new EncoderError(`ffmpeg could not start: ${(error as Error).message}`, { cause: error }));
      return;
    }
    let failure: unknown;
    let stderr = "";
    const fail = (error: unknown) => {
      failure ??= error;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    if (child.pid !== undefined && options.niceness !== 0) {
      try {
        setPriority(child.pid, options.niceness);
      } catch {
        // Lowering priority is a courtesy to the event loop; encoding works without it.
      }
    }
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
    });
    child.stdin.on("error", (error) =>
      fail(new EncoderError(`ffmpeg stopped reading frames: ${error.message}`)),
    );
    child.on("error", (error) => fail(new EncoderError(`ffmpeg could not start: ${error.message}`)));
    child.on("close", (code, exitSignal) => {
      signal.removeEventListener("abort", onAbort);
      if (failure !== undefined) reject(failure);
      else if (code === 0) resolve();
      else reject(new EncoderError(`ffmpeg exited with ${code ?? exitSignal}: ${stderr.trim()}`));
    });
    feedFrames(frames, options, child.stdin, () => failure !== undefined).catch(fail);
  });
}

async function feedFrames(
  frames: FrameSource,
  options: EncodeOptions,
  stdin: Writable,
  stopped: () => boolean,
): Promise<void> {
  const lookahead = Math.max(1, options.lookahead ?? 3);
  const pending = new Map<number, Promise<Buffer>>();
  const request = (index: number) => {
    if (index < options.frameCount && !pending.has(index)) {
      const frame = frames.frame(index);
      // Handled where awaited; this only keeps an early failure from being reported as unhandled.
      frame.catch(() => {});
      pending.set(index, frame);
    }
  };
  const frameBytes = options.size.width * options.size.height * 3;
  for (let index = 0; index < options.frameCount; index++) {
    for (let ahead = index; ahead < index + lookahead; ahead++) request(ahead);
    const frame = await pending.get(index)!;
    pending.delete(index);
    if (stopped()) return;
    if (frame.length !== frameBytes) {
      throw new EncoderError(`frame ${index} has ${frame.length} bytes, expected ${frameBytes}`);
    }
    if (!stdin.write(frame)) await drained(stdin);
    if (stopped()) return;
  }
  stdin.end();
}

function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", done);
  });
}
