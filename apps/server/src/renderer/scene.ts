import type { GenerationRequest } from "@genvideo/schema";
import { drawCaption, renderCaption } from "./caption.js";
import { fitImage } from "./input-image.js";
import { orbSprite } from "./orb.js";
import { promptLook, renderPattern } from "./prompt-pattern.js";
import {
  crossFadeScene,
  type Scene,
  type SceneTiming,
  type StillPicture,
  sequenceScene,
  wipeScene,
} from "./scene-graph.js";
import { hueRotation, IDENTITY, yuv420FromBlocks, yuv420FromRgb } from "./yuv-picture.js";

/**
 * The pictures a video is made of, drawn once (fitted images by sharp on
 * libuv's thread pool, the pattern, caption and orb in plain JS) and handed
 * over in YUV (yuv-picture.ts), and the motion ffmpeg makes of them
 * (scene-graph.ts). Picks the animation for the request form
 * (docs/api.md#request-forms: text, frame-to-frame, reference).
 */
export function sceneFor(request: GenerationRequest, timing: SceneTiming): Promise<Scene> {
  if (request.start_frame && request.end_frame) {
    return frameToFrameScene(request.start_frame, request.end_frame, timing);
  }
  if (request.reference_images && request.reference_images.length > 0) {
    return referenceScene(request.prompt, request.reference_images, timing);
  }
  return textScene(request.prompt, timing);
}

/** The caption band drawn over the bottom of a yuv420p picture (each frame-wide copy in it), in place. */
function captioned(picture: StillPicture, text: string, timing: SceneTiming): StillPicture {
  const caption = renderCaption(text, timing.size.width, timing.size.height);
  if (caption) drawCaption(picture, caption);
  return picture;
}

/**
 * Text to video: the prompt's pattern, then the same pattern with its hues
 * turned wiping across it from one side, while a glowing orb traces a
 * Lissajous path; the prompt is the caption. All three come from the prompt.
 */
async function textScene(prompt: string, timing: SceneTiming): Promise<Scene> {
  const look = promptLook(prompt);
  // The pair the wipe reads: the turned copy on the side opposite the one it wipes in from.
  const turned = hueRotation(look.hueSpin);
  const matrices = look.driftFromRight ? [turned, IDENTITY] : [IDENTITY, turned];
  const pair = captioned(
    yuv420FromBlocks(renderPattern(look, timing.size), timing.size, matrices),
    prompt,
    timing,
  );
  const orbDiameter = Math.max(
    4,
    Math.round((Math.min(timing.size.width, timing.size.height) * 0.18) / 2) * 2,
  );
  return wipeScene(
    pair,
    orbSprite(orbDiameter),
    {
      fromRight: look.driftFromRight,
      orbFrequencyX: look.orbFrequencyX,
      orbFrequencyY: look.orbFrequencyY,
      orbPhase: look.orbPhase,
    },
    timing,
  );
}

/**
 * Fits the images in parallel, but when several cannot be decoded, reports the
 * first in request order: the task's error names the same field every time.
 */
async function fitImages(
  images: readonly (readonly [dataUri: string, label: string])[],
  timing: SceneTiming,
): Promise<Buffer[]> {
  const settled = await Promise.allSettled(
    images.map(([dataUri, label]) => fitImage(dataUri, timing.size, label)),
  );
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
async function frameToFrameScene(startFrame: string, endFrame: string, timing: SceneTiming): Promise<Scene> {
  const [start, end] = await fitImages(
    [
      [startFrame, "start_frame"],
      [endFrame, "end_frame"],
    ],
    timing,
  );
  return crossFadeScene(yuv420FromRgb(start!, timing.size), yuv420FromRgb(end!, timing.size), timing);
}

/**
 * Reference images in turn: each holds for an equal share of the clip and
 * cross-fades into the next over the last 0.4 s of its share (at most a
 * third of it); the caption names which reference is showing and the prompt.
 */
async function referenceScene(prompt: string, images: string[], timing: SceneTiming): Promise<Scene> {
  const fitted = await fitImages(
    images.map((image, index) => [image, `reference_images[${index}]`] as const),
    timing,
  );
  const pictures = fitted.map((rgb, index) =>
    captioned(yuv420FromRgb(rgb, timing.size), `[reference ${index + 1}/${fitted.length}] ${prompt}`, timing),
  );
  const share = timing.frameCount / pictures.length;
  const fadeFrames = Math.min(Math.round(timing.fps * 0.4), Math.floor(share / 3));
  return sequenceScene(pictures, fadeFrames, timing);
}
