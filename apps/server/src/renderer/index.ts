export { resolveFfmpegPath } from "./ffmpeg-path.js";
export { EncoderError } from "./h264-encoder.js";
export { InputImageError } from "./input-image.js";
export { type FrameSize, outputSize } from "./output-geometry.js";
export { createSyntheticRenderer, type SyntheticRendererOptions } from "./synthetic-renderer.js";
