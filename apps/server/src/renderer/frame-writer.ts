import type { Writable } from "node:stream";
import type { FrameSource } from "./frame-sources.js";

export interface FrameWriteOptions {
  frameCount: number;
  /** Bytes of one raw RGB frame: a wrong size would shift every later frame. */
  frameBytes: number;
  /** Frames produced ahead of the one being written, to keep the encoder busy. */
  lookahead?: number;
  /** Whether to end `output` after the last frame (not for process.stdout, which cannot end). */
  end: boolean;
  /** Checked between frames: true once the encode has failed or been aborted. */
  stopped?: () => boolean;
}

/** Writes every frame in order to `output`, honouring back-pressure. */
export async function writeFrames(
  frames: FrameSource,
  output: Writable,
  options: FrameWriteOptions,
): Promise<void> {
  const stopped = options.stopped ?? (() => false);
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
  for (let index = 0; index < options.frameCount; index++) {
    for (let ahead = index; ahead < index + lookahead; ahead++) request(ahead);
    const frame = await pending.get(index)!;
    pending.delete(index);
    if (stopped()) return;
    if (frame.length !== options.frameBytes) {
      throw new Error(`frame ${index} has ${frame.length} bytes, expected ${options.frameBytes}`);
    }
    await new Promise<void>((resolve, reject) => {
      output.write(frame, (error) => (error ? reject(error) : resolve()));
    });
    if (stopped()) return;
  }
  if (options.end) output.end();
}
