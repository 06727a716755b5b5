import { type ChildProcess, execFile, fork, spawn } from "node:child_process";
import { once } from "node:events";
import { getPriority, setPriority } from "node:os";
import type { Writable } from "node:stream";
import type { FrameJob, FrameProcessReport } from "./frame-process.js";
import type { FrameProcessLaunch } from "./frame-process-launcher.js";
import type { FrameSource } from "./frame-sources.js";
import { writeFrames } from "./frame-writer.js";
import { InputImageError } from "./input-image.js";
import type { FrameSize } from "./output-geometry.js";
import { yuvFrameBytes } from "./yuv-frame.js";

export interface EncodeOptions {
  ffmpegPath: string;
  size: FrameSize;
  fps: number;
  frameCount: number;
  outputPath: string;
  /** Added to this process's nice value for the render's processes, so they yield the CPU to request handling. */
  niceness: number;
}

/**
 * Where frames come from: a frame process writing straight into ffmpeg's stdin
 * (the default, nothing on the event loop), or a source in this process.
 */
export type FrameFeed =
  | { kind: "process"; launch: FrameProcessLaunch; job: FrameJob }
  | { kind: "in-process"; frames: FrameSource };

/** ffmpeg or the frame process failed; the render fails as GENERATION_FAILED. */
export class EncoderError extends Error {
  override name = "EncoderError";
}

const STDERR_KEPT = 4096;

function ffmpegArguments(options: EncodeOptions): string[] {
  const { size, fps, frameCount, outputPath } = options;
  return [
    ...["-hide_banner", "-loglevel", "error"],
    // Frames arrive as I420 in BT.601 limited range (yuv-frame.ts): nothing to convert.
    ...[
      "-f",
      "rawvideo",
      "-pix_fmt",
      "yuv420p",
      "-s",
      `${size.width}x${size.height}`,
      "-framerate",
      String(fps),
    ],
    ...["-i", "pipe:0", "-frames:v", String(frameCount)],
    // High profile yuv420p is what every browser's <video> decodes; faststart puts
    // the index first so playback starts before the download ends. ultrafast, with
    // CABAC and 8x8 transforms kept (they make it High profile and cost little):
    // frames differ only where something moves, which even ultrafast codes well.
    // One thread: a 5 s clip is too short for threads to repay their start-up.
    ...["-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage", "-crf", "20"],
    ...["-x264-params", "cabac=1:8x8dct=1", "-threads", "1", "-profile:v", "high", "-pix_fmt", "yuv420p"],
    ...["-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m"],
    ...["-color_range", "tv", "-movflags", "+faststart", "-f", "mp4", "-y", outputPath],
  ];
}

/** Relative to this process's own nice value, so a server started with `nice` keeps the gap. */
export function lowerPriority(child: ChildProcess, niceness: number): void {
  if (child.pid === undefined || niceness === 0) return;
  try {
    setPriority(child.pid, Math.min(19, getPriority() + niceness));
  } catch {
    // A courtesy to the event loop; rendering works without it.
  }
  // SCHED_IDLE, where the kernel allows it: a render then only gets a CPU that no
  // request wants, which a nice value alone does not ensure on a machine with few CPUs.
  execFile("chrt", ["--all-tasks", "--idle", "--pid", "0", String(child.pid)], () => {});
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
    } else {
      child.once("close", (code, signal) => resolve({ code, signal }));
    }
  });
}

function kill(child: ChildProcess | undefined): void {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

function tail(stream: NodeJS.ReadableStream | null): () => string {
  let text = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    text = (text + chunk).slice(-STDERR_KEPT);
  });
  return () => text.trim();
}

/**
 * Encodes the frames to an H.264 MP4 at `outputPath` with ffmpeg. Resolves
 * when ffmpeg has written the file; on abort or any failure, kills every
 * process of the render and rejects only after they have exited, so the
 * caller can delete the partial file without a process writing it again.
 */
export async function encodeH264(
  feed: FrameFeed,
  options: EncodeOptions,
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted();
  let failure: unknown;
  let frameProcess: ChildProcess | undefined;
  const ffmpeg = spawn(options.ffmpegPath, ffmpegArguments(options), { stdio: ["pipe", "ignore", "pipe"] });
  if (ffmpeg.pid === undefined) {
    const [error] = (await once(ffmpeg, "error")) as [Error];
    throw new EncoderError(`ffmpeg could not start (${options.ffmpegPath}): ${error.message}`);
  }
  const fail = (error: unknown) => {
    failure ??= error;
    kill(ffmpeg);
    kill(frameProcess);
  };
  const onAbort = () => fail(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const ffmpegErrors = tail(ffmpeg.stderr);
  const ffmpegExit = exited(ffmpeg);
  ffmpeg.on("error", (error) => fail(new EncoderError(`ffmpeg could not start: ${error.message}`)));
  ffmpeg.stdin.on("error", (error) =>
    fail(new EncoderError(`ffmpeg stopped reading frames: ${error.message}`)),
  );
  lowerPriority(ffmpeg, options.niceness);

  const processes: Promise<unknown>[] = [ffmpegExit];
  if (feed.kind === "process") {
    processes.push(runFrameProcess(feed, ffmpeg.stdin, options, fail, (child) => (frameProcess = child)));
  } else {
    const frameBytes = yuvFrameBytes(options.size);
    processes.push(
      writeFrames(feed.frames, ffmpeg.stdin, {
        frameCount: options.frameCount,
        frameBytes,
        end: true,
        stopped: () => failure !== undefined,
      }).catch(fail),
    );
  }
  await Promise.all(processes);
  signal.removeEventListener("abort", onAbort);
  if (failure !== undefined) throw failure;
  const { code, signal: exitSignal } = await ffmpegExit;
  if (code !== 0) throw new EncoderError(`ffmpeg exited with ${code ?? exitSignal}: ${ffmpegErrors()}`);
}

/**
 * Starts the frame process with ffmpeg's stdin as its stdout, then lets go of
 * this process's end of that pipe: ffmpeg sees the end of input exactly when
 * the frame process exits. Resolves once it has exited.
 */
async function runFrameProcess(
  feed: Extract<FrameFeed, { kind: "process" }>,
  ffmpegInput: Writable,
  options: EncodeOptions,
  fail: (error: unknown) => void,
  started: (child: ChildProcess) => void,
): Promise<void> {
  const child = fork(feed.launch.entry, [], {
    execArgv: feed.launch.execArgv,
    stdio: ["ignore", ffmpegInput, "pipe", "ipc"],
    serialization: "advanced",
  });
  started(child);
  ffmpegInput.destroy();
  lowerPriority(child, options.niceness);
  const errors = tail(child.stderr);
  let report: FrameProcessReport | undefined;
  child.on("message", (message: FrameProcessReport) => {
    report = message;
  });
  child.on("error", (error) => fail(new EncoderError(`frame process failed: ${error.message}`)));
  child.send(feed.job);
  const { code, signal } = await exited(child);
  if (report?.type === "error") {
    const ErrorType = report.name === "InputImageError" ? InputImageError : EncoderError;
    fail(new ErrorType(report.message));
  } else if (code !== 0 || report?.type !== "done") {
    fail(new EncoderError(`frame process exited with ${code ?? signal}: ${errors()}`));
  }
}
