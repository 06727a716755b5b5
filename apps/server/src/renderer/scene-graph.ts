/**
 * The motion of a video as an ffmpeg filtergraph. The server hands ffmpeg a
 * few still pictures once (the prompt's pattern beside its hue-turned copy,
 * fitted images, the orb) and ffmpeg makes every frame from them with its own
 * filters: held pictures (`loop`), a wipe (`crop` + `hstack` at a moving
 * column), a cross-fade (`fade` of an alpha plane + `overlay`) and a sprite
 * on a path (`overlay`). No frame is made in JavaScript or sent through a
 * pipe, and between two frames only what moves changes, which x264 codes for
 * almost nothing.
 */
import type { FrameSize } from "./output-geometry.js";

/**
 * A picture ffmpeg reads once, as raw planar YUV 4:2:0 over a pipe of its own
 * (yuv-picture.ts): `yuva420p`, with a full-size alpha plane, for sprites.
 */
export interface StillPicture {
  pixels: Buffer;
  width: number;
  height: number;
  pixelFormat: "yuv420p" | "yuva420p";
}

/** What ffmpeg needs to make a video: input `i` is `pictures[i]`; the graph's output is `[video]`. */
export interface Scene {
  pictures: StillPicture[];
  filter: string;
}

export interface SceneTiming {
  size: FrameSize;
  frameCount: number;
  fps: number;
}

/** Distinct pictures in a cross-fade: about the smoothness of one per frame at 12 fps over a second. */
export const FADE_STEPS = 12;

/** Smoothstep of an ffmpeg expression, clamped to 0..1: transitions start and land gently. */
function smoothstep(value: string): string {
  const clamped = `clip(${value},0,1)`;
  return `(3*pow(${clamped},2)-2*pow(${clamped},3))`;
}

/**
 * Every stream runs on one microsecond time base, so that a cross-fade can
 * carry its amount in its timestamps (see `fadingIn`) and streams still meet
 * frame for frame in `overlay`.
 */
function held(frames: number, fps: number): string {
  return `loop=loop=${frames - 1}:size=1:start=0,settb=AVTB,setpts=N/${fps}/TB`;
}

/**
 * A picture fading in over `frames` frames with alpha `amount` (an
 * expression of the frame number N, 0..1, never decreasing): `fade` sets the
 * alpha plane from each frame's time, so the time is set to the amount for
 * it, then back. Rounded to FADE_STEPS steps, each held over the frames that
 * fall on it, so the encoder sees at most that many distinct pictures.
 */
function fadingIn(frames: number, fps: number, amount: string): string {
  return (
    `format=yuva420p,loop=loop=${frames - 1}:size=1:start=0,settb=AVTB,` +
    `setpts='round(${FADE_STEPS}*(${amount}))/${FADE_STEPS}/TB',fade=t=in:st=0:d=1:alpha=1,setpts=N/${fps}/TB`
  );
}

/** Labels `[<input>:v]` made into `count` streams named `<name>0`, `<name>1`, ... */
function copies(input: number, name: string, count: number): string {
  const outputs = Array.from({ length: count }, (_, index) => `[${name}${index}]`).join("");
  return `[${input}:v]split=${count}${outputs}`;
}

export interface WipeLook {
  /** Whether the turned picture wipes in from the right (else from the left): the pair's order. */
  fromRight: boolean;
  /** The orb's Lissajous path: frequencies and phase (radians). */
  orbFrequencyX: number;
  orbFrequencyY: number;
  orbPhase: number;
}

/**
 * Text to video: the picture, then its turned copy wiping across it (eased),
 * while the orb sprite traces a Lissajous curve. Both pictures come as one,
 * `pair`, side by side, the turned copy on the side opposite the one it
 * wipes in from; each frame is a window onto the pair (`crop` at the wipe's
 * column) rotated by that column: the window next to itself (`hstack`, the
 * one copy of pixels a frame takes) cropped again. Pictures: 0 the pair
 * (twice the frame's width), 1 the orb (yuva420p, square).
 */
export function wipeScene(pair: StillPicture, orb: StillPicture, look: WipeLook, timing: SceneTiming): Scene {
  const { size, frameCount, fps } = timing;
  const { width, height } = size;
  const last = Math.max(1, frameCount - 1);
  const revealed = `2*round(${width / 2}*${smoothstep(`n/${last}`)})`;
  // The columns left of `split` show the right-hand picture of the pair, the others the left-hand one.
  const split = look.fromRight ? `${width}-${revealed}` : revealed;
  const window = `crop=w=${width}:h=${height}:x='${split}':y=0`;
  const rotated = `crop=w=${width}:h=${height}:x='${width}-(${split})':y=0`;
  const angle = `2*PI*n/${last}`;
  const orbX = `2*round((sin(${angle}*${look.orbFrequencyX}+${look.orbPhase})+1)/4*${width - orb.width})`;
  const orbY = `2*round((sin(${angle}*${look.orbFrequencyY})+1)/4*${height - orb.height})`;
  const filter = [
    `[0:v]${held(frameCount, fps)},${window},split=2[window][again]`,
    `[window][again]hstack,${rotated}[wiped]`,
    `[wiped][1:v]overlay=x='${orbX}':y='${orbY}'[video]`,
  ].join(";");
  return { pictures: [pair, orb], filter };
}

/**
 * Frame to frame: the first frame is the start picture, the last the end
 * picture, with an eased cross-fade between.
 */
export function crossFadeScene(start: StillPicture, end: StillPicture, timing: SceneTiming): Scene {
  const { frameCount, fps } = timing;
  const last = Math.max(1, frameCount - 1);
  const filter = [
    `[0:v]${held(frameCount, fps)}[start]`,
    `[1:v]${fadingIn(frameCount, fps, smoothstep(`N/${last}`))}[end]`,
    `[start][end]overlay=x=0:y=0[video]`,
  ].join(";");
  return { pictures: [start, end], filter };
}

/**
 * Pictures in turn: each holds for an equal share of the clip and
 * cross-fades into the next over its last `fadeFrames` frames (eased).
 */
export function sequenceScene(pictures: StillPicture[], fadeFrames: number, timing: SceneTiming): Scene {
  const { frameCount, fps } = timing;
  const share = frameCount / pictures.length;
  const segments = pictures
    .map((_, index) => ({
      index,
      frames: Math.round((index + 1) * share) - Math.round(index * share),
    }))
    .filter((segment) => segment.frames > 0)
    .map((segment, position, shown) => ({
      ...segment,
      fadeInto: fadeFrames > 0 ? shown[position + 1]?.index : undefined,
    }));
  // Each picture is the base of its share and fades in over the end of the share before.
  const uses = pictures.map(() => 0);
  for (const segment of segments) {
    uses[segment.index]!++;
    if (segment.fadeInto !== undefined) uses[segment.fadeInto]!++;
  }
  const parts = uses.map((count, index) =>
    count === 0 ? `[${index}:v]nullsink` : copies(index, `p${index}_`, count),
  );
  const next = uses.map(() => 0);
  const take = (index: number) => `[p${index}_${next[index]!++}]`;
  for (const { index, frames, fadeInto } of segments) {
    if (fadeInto === undefined) {
      parts.push(`${take(index)}${held(frames, fps)}[s${index}]`);
      continue;
    }
    const fadeStart = frames - Math.min(fadeFrames, frames);
    const amount = `if(gte(N,${fadeStart}),${smoothstep(`(N-${fadeStart}+1)/${fadeFrames + 1}`)},0)`;
    parts.push(`${take(index)}${held(frames, fps)}[b${index}]`);
    parts.push(`${take(fadeInto)}${fadingIn(frames, fps, amount)}[f${index}]`);
    parts.push(`[b${index}][f${index}]overlay=x=0:y=0[s${index}]`);
  }
  const joined = segments.map(({ index }) => `[s${index}]`).join("");
  parts.push(`${joined}concat=n=${segments.length}:v=1:a=0,setpts=N/${fps}/TB[video]`);
  return { pictures, filter: parts.join(";") };
}
