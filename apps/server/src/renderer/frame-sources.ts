import type { GenerationRequest } from "@genvideo/schema";
import sharp, { type OverlayOptions } from "sharp";
import { type Overlay, renderCaption } from "./caption.js";
import { fitImage } from "./input-image.js";
import type { FrameSize } from "./output-geometry.js";
import { promptLook, renderOrb, renderPatternCanvas } from "./prompt-pattern.js";

/**
 * Produces the raw RGB frames of one video. Heavy pixel work (SVG rendering,
 * decoding, fitting, cropping, blending) runs in sharp, i.e. on libuv's thread
 * pool, so the event loop only sequences promises while a video is made.
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

function rawInput(size: FrameSize, channels: 3 | 4) {
  return { raw: { width: size.width, height: size.height, channels } };
}

function captionLayer(caption: Overlay | undefined, size: FrameSize): OverlayOptions[] {
  if (!caption) return [];
  return [
    {
      input: caption.rgba,
      raw: { width: caption.width, height: caption.height, channels: 4 },
      left: 0,
      top: size.height - caption.height,
    },
  ];
}

/** `from` blended towards `to` by `amount` (0..1); the exact inputs at 0 and 1. */
async function blend(from: Buffer, to: Buffer, amount: number, size: FrameSize, layers: OverlayOptions[]) {
  const overlays: OverlayOptions[] = [];
  if (amount >= 1) return compose(to, size, layers);
  if (amount > 0) {
    const translucent = await sharp(to, rawInput(size, 3)).ensureAlpha(amount).raw().toBuffer();
    overlays.push({ input: translucent, ...rawInput(size, 4) });
  }
  return compose(from, size, [...overlays, ...layers]);
}

async function compose(base: Buffer, size: FrameSize, layers: OverlayOptions[]): Promise<Buffer> {
  if (layers.length === 0) return base;
  return sharp(base, rawInput(size, 3)).composite(layers).removeAlpha().raw().toBuffer();
}

/**
 * Text to video: the camera drifts across a pattern seeded by the prompt while
 * its colours turn and an orb traces a Lissajous path; the prompt is the caption.
 */
async function textFrames(prompt: string, plan: FramePlan): Promise<FrameSource> {
  const { size } = plan;
  const look = promptLook(prompt);
  const { rgb, canvas } = await renderPatternCanvas(look, size);
  const orbDiameter = Math.max(4, Math.round(Math.min(size.width, size.height) * 0.18));
  const orb = await renderOrb(orbDiameter);
  const caption = renderCaption(prompt, size.width, size.height);
  const slackX = canvas.width - size.width;
  const slackY = canvas.height - size.height;
  return {
    async frame(index) {
      const progress = progressOf(index, plan);
      const left = Math.round((look.driftFromRight ? 1 - progress : progress) * slackX);
      const top = Math.round((look.driftFromBottom ? 1 - progress : progress) * slackY);
      const angle = progress * Math.PI * 2;
      const orbLeft = Math.round(
        ((Math.sin(angle * look.orbFrequencyX + look.orbPhase) + 1) / 2) * (size.width - orbDiameter),
      );
      const orbTop = Math.round(
        ((Math.sin(angle * look.orbFrequencyY) + 1) / 2) * (size.height - orbDiameter),
      );
      return sharp(rgb, rawInput(canvas, 3))
        .extract({ left, top, width: size.width, height: size.height })
        .modulate({ hue: Math.round(progress * look.hueSpin) })
        .composite([
          {
            input: orb,
            raw: { width: orbDiameter, height: orbDiameter, channels: 4 },
            left: orbLeft,
            top: orbTop,
          },
          ...captionLayer(caption, size),
        ])
        .removeAlpha()
        .raw()
        .toBuffer();
    },
  };
}

/**
 * Fits the images in parallel, but when several cannot be decoded, reports the
 * first in request order: the task's error names the same field every time.
 */
type FittedImage = Awaited<ReturnType<typeof fitImage>>;

async function fitImages(
  images: readonly (readonly [dataUri: string, label: string])[],
  size: Parameters<typeof fitImage>[1],
): Promise<FittedImage[]> {
  const settled = await Promise.allSettled(images.map(([dataUri, label]) => fitImage(dataUri, size, label)));
  return settled.map((result) => {
    if (result.status === "rejected") throw result.reason;
    return result.value;
  });
}

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
  const [start, end] = (await fitImages(
    [
      [startFrame, "start_frame"],
      [endFrame, "end_frame"],
    ],
    plan.size,
  )) as [FittedImage, FittedImage];
  return {
    frame: (index) => blend(start, end, smoothstep(progressOf(index, plan)), plan.size, []),
  };
}

/**
 * Reference images in turn: each holds for an equal share of the clip and
 * cross-fades into the next over the last part of its share; the caption
 * names which reference is showing and the prompt.
 */
async function referenceFrames(prompt: string, images: string[], plan: FramePlan): Promise<FrameSource> {
  const fitted = await fitImages(
    images.map((image, index) => [image, `reference_images[${index}]`] as const),
    plan.size,
  );
  const captions = fitted.map((_, index) =>
    renderCaption(`[reference ${index + 1}/${fitted.length}] ${prompt}`, plan.size.width, plan.size.height),
  );
  const share = plan.frameCount / fitted.length;
  const fadeFrames = Math.min(Math.round(plan.fps * 0.4), Math.floor(share / 3));
  return {
    frame(index) {
      const slot = Math.min(fitted.length - 1, Math.floor(index / share));
      const current = fitted[slot]!;
      const next = fitted[slot + 1];
      const intoFade = index - (Math.round((slot + 1) * share) - fadeFrames);
      const amount =
        next && fadeFrames > 0 && intoFade >= 0 ? smoothstep((intoFade + 1) / (fadeFrames + 1)) : 0;
      return blend(current, next ?? current, amount, plan.size, captionLayer(captions[slot], plan.size));
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
