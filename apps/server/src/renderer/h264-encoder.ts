import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { once } from "node:events";
import { accessSync, constants } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { delimiter, join } from "node:path";
import type { Writable } from "node:stream";
import type { FrameSize } from "./output-geometry.js";
import type { Scene } from "./scene-graph.js";

export interface EncodeOptions {
  ffmpegPath: string;
  size: FrameSize;
  fps: number;
  frameCount: number;
  outputPath: string;
  /** Added to this process's nice value for ffmpeg, so it yields the CPU to request handling. */
  niceness: number;
}

/** ffmpeg failed; the render fails as GENERATION_FAILED. */
export class EncoderError extends Error {
  override name = "EncoderError";
}

const STDERR_KEPT = 4096;
/** The first file descriptor of ffmpeg's picture pipes (0 to 2 are stdin, stdout, stderr). */
const FIRST_PICTURE_FD = 3;

function ffmpegArguments(scene: Scene, options: EncodeOptions): string[] {
  const { fps, frameCount, outputPath } = options;
  const inputs = scene.pictures.flatMap((picture, index) => [
    ...["-f", "rawvideo", "-pix_fmt", picture.pixelFormat],
    ...["-s", `${picture.width}x${picture.height}`, "-framerate", String(fps)],
    ...["-i", `pipe:${FIRST_PICTURE_FD + index}`],
  ]);
  return [
    ...["-hide_banner", "-loglevel", "error", "-nostdin", "-filter_complex_threads", "1"],
    ...inputs,
    ...[
      "-filter_complex",
      scene.filter,
      "-map",
      "[video]",
      "-frames:v",
      String(frameCount),
      "-r",
      String(fps),
    ],
    // High profile yuv420p is what every browser's <video> decodes; faststart puts the index first
    // so playback starts before the download ends. ultrafast, with 8x8 transforms kept (they make
    // it High profile) and CABAC (files 11 to 18% smaller than CAVLC's, for 5 to 10% more CPU). A
    // constant QP rather than CRF: CRF lowers the QP of frames that barely change, so x264 re-codes
    // a held picture frame after frame to refine it (three times the CPU of the whole render); at a
    // constant QP a frame that repeats the one before is skipped for almost nothing. Trellis
    // quantisation off, as ultrafast means it: the x264 inside @ffmpeg-installer's ffmpeg (r2935)
    // leaves it on at ultrafast, a slip x264 fixed two revisions later; it took 13% of the
    // encoder's instructions for no visible change. One thread: a 5 s clip is too short for
    // threads to repay their start-up.
    ...["-c:v", "libx264", "-preset", "ultrafast", "-qp", "20", "-x264-params", "cabac=1:8x8dct=1:trellis=0"],
    ...["-threads", "1", "-profile:v", "high", "-pix_fmt", "yuv420p"],
    // The pictures are YUV with BT.601 limited-range coefficients (yuv-picture.ts): say so.
    ...["-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m"],
    ...["-color_range", "tv", "-movflags", "+faststart", "-f", "mp4", "-y", outputPath],
  ];
}

/** Where `chrt` (util-linux) is on the PATH, looked up once; undefined where there is none. */
let chrtPath: string | null | undefined;
function findChrt(): string | undefined {
  if (chrtPath === undefined) {
    chrtPath = null;
    if (process.platform === "linux") {
      for (const dir of (process.env.PATH ?? "").split(delimiter)) {
        try {
          accessSync(join(dir, "chrt"), constants.X_OK);
          chrtPath = join(dir, "chrt");
          break;
        } catch {}
      }
    }
  }
  return chrtPath ?? undefined;
}

/**
 * Starts `command` at a lower CPU priority: under SCHED_IDLE where the kernel
 * allows it (`chrt --idle 0 <command>`: chrt sets the policy and execs the
 * command, one process and no second spawn), so it only gets a CPU that no
 * request wants, which a nice value alone does not ensure on a machine with
 * few CPUs; and `niceness` above this process's nice value, relative, so a
 * server started with `nice` keeps the gap. 0 starts it as it is.
 */
export function spawnLowered(
  command: string,
  args: string[],
  niceness: number,
  options: SpawnOptions,
): ChildProcess {
  const chrt = niceness === 0 ? undefined : findChrt();
  const child = chrt
    ? spawn(chrt, ["--idle", "0", command, ...args], options)
    : spawn(command, args, options);
  if (child.pid !== undefined && niceness !== 0) {
    try {
      setPriority(child.pid, Math.min(19, getPriority() + niceness));
    } catch {
      // A courtesy to the event loop; rendering works without it.
    }
  }
  return child;
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

function tail(stream: NodeJS.ReadableStream | null): () => string {
  let text = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    text = (text + chunk).slice(-STDERR_KEPT);
  });
  return () => text.trim();
}

/**
 * Makes the scene into an H.264 MP4 at `outputPath` with one ffmpeg process:
 * each picture goes in once over a pipe of its own, ffmpeg's filters make the
 * frames. Resolves when ffmpeg has written the file; on abort or any failure,
 * kills ffmpeg and rejects only after it has exited, so the caller can delete
 * the partial file without a process writing it again.
 */
export async function encodeH264(scene: Scene, options: EncodeOptions, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  const pipes = scene.pictures.map(() => "pipe" as const);
  const ffmpeg = spawnLowered(options.ffmpegPath, ffmpegArguments(scene, options), options.niceness, {
    stdio: ["ignore", "ignore", "pipe", ...pipes],
  });
  if (ffmpeg.pid === undefined) {
    const [error] = (await once(ffmpeg, "error")) as [Error];
    throw new EncoderError(`ffmpeg could not start (${options.ffmpegPath}): ${error.message}`);
  }
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
    if (ffmpeg.exitCode === null && ffmpeg.signalCode === null) ffmpeg.kill("SIGKILL");
  };
  const onAbort = () => fail(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const ffmpegErrors = tail(ffmpeg.stderr);
  const ffmpegExit = exited(ffmpeg);
  ffmpeg.on("error", (error) => fail(new EncoderError(`ffmpeg failed: ${error.message}`)));
  scene.pictures.forEach((picture, index) => {
    const input = ffmpeg.stdio[FIRST_PICTURE_FD + index] as Writable;
    // A pipe ffmpeg closed early means it failed; its exit code and stderr say why.
    input.on("error", () => {});
    input.end(picture.pixels);
  });
  const { code, signal: exitSignal } = await ffmpegExit;
  signal.removeEventListener("abort", onAbort);
  if (failure !== undefined) throw failure;
  if (code !== 0) throw new EncoderError(`ffmpeg exited with ${code ?? exitSignal}: ${ffmpegErrors()}`);
}
