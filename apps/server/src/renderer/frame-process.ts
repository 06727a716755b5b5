/**
 * Entry of the frame process: a child Node process that makes one video's
 * frames and writes them as raw I420 to its stdout, which is ffmpeg's stdin.
 * The server process only starts it and waits, so neither the pixel work nor
 * the garbage it makes ever touches the event loop that answers requests, and
 * the whole render can run at a lower CPU priority.
 */
import type { GenerationRequest } from "@genvideo/schema";
import { framesFor } from "./frame-sources.js";
import { writeFrames } from "./frame-writer.js";
import type { FrameSize } from "./output-geometry.js";
import { yuvFrameBytes } from "./yuv-frame.js";

export interface FrameJob {
  request: GenerationRequest;
  size: FrameSize;
  fps: number;
  frameCount: number;
}

export type FrameProcessReport = { type: "done" } | { type: "error"; name: string; message: string };

async function run(job: FrameJob): Promise<void> {
  const frames = await framesFor(job.request, job);
  await writeFrames(frames, process.stdout, {
    frameCount: job.frameCount,
    frameBytes: yuvFrameBytes(job.size),
    end: false,
  });
}

function report(message: FrameProcessReport): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

if (process.send) {
  process.once("message", (job: FrameJob) => {
    run(job)
      .then(() => report({ type: "done" }))
      .catch(async (error: Error) => {
        process.exitCode = 1;
        await report({ type: "error", name: error.name, message: error.message });
      })
      .finally(() => process.disconnect());
  });
}
