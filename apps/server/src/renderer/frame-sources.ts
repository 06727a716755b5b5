import type { GenerationRequest } from "@genvideo/schema";
import { type Overlay, renderCaption } from "./caption.js";
import { fitImage } from "./input-image.js";
import type { FrameSize } from "./output-geometry.js";
import { promptLook, renderPatternPair } from "./prompt-pattern.js";
import { blendYuv, drawOrb, drawOverlay, orbOpacity, rgbToYuv420, wipe } from "./yuv-frame.js";

/**
 * Produces the frames of one video as I420 (see yuv-frame.ts). The pictures
 * a video is made of are decoded, drawn and converted once, by sharp on
 * libuv's thread pool and in plain JS; each frame is then a few row copies,
 * a blend or a small sprite away from them. Frames stay cheap to make and to
 * encode: between two frames only what moves changes.
 */
export interface FrameSource {
  frame(index: number): Promise<Buffer>;
}

export interface FramePlan {
  size: FrameSize;
  frameCount: number;
  fps: number;
}

/** 0 at the first frame, 1 at the last. */
function progressOf(index: number, plan: FramePlan): number {
  return plan.frameCount <= 1 ? 0 : index / (plan.frameCount - 1);
}

/** Ease in and out, so a transition starts and lands gently. */
function smoothstep(value: number): number {
  const clamped = Math.min(1, Math.max(0, value));
  return clamped * clamped * (3 - 2 * clamped);
}

function even(value: number): number {
  return Math.max(0, Math.round(value / 2) * 2);
}

/** The caption band drawn over the bottom of an RGB picture, in place. */
function withCaption(rgb: Buffer, caption: Overlay | undefined, size: FrameSize): Buffer {
  if (caption) drawOverlay(rgb, size, caption, 0, size.height - caption.height);
  return rgb;
}

/**
 * Blends cached by step: a cross-fade shows at most `steps` distinct
 * pictures between its ends, each held for the frames that fall on it (an
 * encoder codes a repeated frame for almost nothing).
 */
function blendSteps(from: Buffer, to: Buffer, steps: number): (amount: number) => Buffer {
  const cache = new Map<number, Buffer>();
  return (amount) => {
    const step = Math.round(Math.min(1, Math.max(0, amount)) * steps);
    let picture = cache.get(step);
    if (!picture) {
      picture = blendYuv(from, to, step / steps);
      cache.set(step, picture);
    }
    return picture;
  };
}

/**
 * Text to video: the prompt's pattern, then the same pattern with its hues
 * turned wiping across it from one side, while a glowing orb traces a
 * Lissajous path; the prompt is the caption. All three come from the prompt.
 */
async function textFrames(prompt: string, plan: FramePlan): Promise<FrameSource> {
  const { size } = plan;
  const look = promptLook(prompt);
  const caption = renderCaption(prompt, size.width, size.height);
  const [first, last] = (await renderPatternPair(look, size)).map((rgb) =>
    rgbToYuv420(withCaption(rgb, caption, size), size),
  ) as [Buffer, Buffer];
  const orbDiameter = Math.max(4, even(Math.min(size.width, size.height) * 0.18));
  const opacity = orbOpacity(orbDiameter);
  return {
    async frame(index) {
      const progress = progressOf(index, plan);
      const split = even(smoothstep(progress) * size.width);
      const frame = look.driftFromRight
        ? wipe(last, first, size.width - split, size)
        : wipe(first, last, split, size);
      const angle = progress * Math.PI * 2;
      const orbLeft = even(
        ((Math.sin(angle * look.orbFrequencyX + look.orbPhase) + 1) / 2) * (size.width - orbDiameter),
      );
      const orbTop = even(((Math.sin(angle * look.orbFrequencyY) + 1) / 2) * (size.height - orbDiameter));
      drawOrb(frame, size, opacity, orbDiameter, orbLeft, orbTop);
      return frame;
    },
  };
}

/**
 * Fits the images in parallel, but when several cannot be decoded, reports the
 * first in request order: the task's error names the same field every time.
 */
async function fitImages(
  images: readonly (readonly [dataUri: string, label: string])[],
  size: FrameSize,
): Promise<Buffer[]> {
  const settled = await Promise.allSettled(images.map(([dataUri, label]) => fitImage(dataUri, size, label)));
  return settled.map((result) => {
    if (result.status === "rejected") throw result.reason;
    return result.value;
  });
}

/** Distinct pictures in a cross-fade: about the smoothness of one per frame at 12 fps over a second. */
const FADE_STEPS = 12;

/**
 * Frame to frame: the first frame is the fitted start image, the last the
 * fitted end image, with an eased cross-fade between. No caption, so both
 * ends match the user's images.
 */
async function frameToFrameFrames(
  startFrame: string,
  endFrame: string,
  plan: FramePlan,
): Promise<FrameSource> {
  const [start, end] = (
    await fitImages(
      [
        [startFrame, "start_frame"],
        [endFrame, "end_frame"],
      ],
      plan.size,
    )
  ).map((rgb) => rgbToYuv420(rgb, plan.size)) as [Buffer, Buffer];
  const fade = blendSteps(start, end, FADE_STEPS);
  return {
    frame: async (index) => fade(smoothstep(progressOf(index, plan))),
  };
}

/**
 * Reference images in turn: each holds for an equal share of the clip and
 * cross-fades into the next over the last part of its share; the caption
 * names which reference is showing and the prompt.
 */
async function referenceFrames(prompt: string, images: string[], plan: FramePlan): Promise<FrameSource> {
  const { size } = plan;
  const fitted = await fitImages(
    images.map((image, index) => [image, `reference_images[${index}]`] as const),
    size,
  );
  const pictures = fitted.map((rgb, index) =>
    rgbToYuv420(
      withCaption(
        rgb,
        renderCaption(`[reference ${index + 1}/${fitted.length}] ${prompt}`, size.width, size.height),
        size,
      ),
      size,
    ),
  );
  const fades = pictures.map((picture, index) =>
    blendSteps(picture, pictures[index + 1] ?? picture, FADE_STEPS),
  );
  const share = plan.frameCount / pictures.length;
  const fadeFrames = Math.min(Math.round(plan.fps * 0.4), Math.floor(share / 3));
  return {
    async frame(index) {
      const slot = Math.min(pictures.length - 1, Math.floor(index / share));
      const intoFade = index - (Math.round((slot + 1) * share) - fadeFrames);
      const amount =
        slot + 1 < pictures.length && fadeFrames > 0 && intoFade >= 0
          ? smoothstep((intoFade + 1) / (fadeFrames + 1))
          : 0;
      return fades[slot]!(amount);
    },
  };
}

/** Picks the animation for the request form (docs/api.md#request-forms: text, frame-to-frame, reference). */
export function framesFor(request: GenerationRequest, plan: FramePlan): Promise<FrameSource> {
  if (request.start_frame && request.end_frame) {
    return frameToFrameFrames(request.start_frame, request.end_frame, plan);
  }
  if (request.reference_images && request.reference_images.length > 0) {
    return referenceFrames(request.prompt, request.reference_images, plan);
  }
  return textFrames(request.prompt, plan);
}
