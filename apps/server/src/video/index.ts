export { parseRange, type RangeRequest } from "./byte-range.js";
export {
  LocalVideoStorage,
  type LocalVideoStorageOptions,
  type VideoSweep,
} from "./local-video-storage.js";
export { createRetentionSweeper, type RetentionSweeper, type SweepableStorage } from "./retention-sweeper.js";
export { type UrlCheck, UrlSigner } from "./url-signature.js";
export type { OpenedVideo, StoredVideoInfo, VideoFileStorage } from "./video-file-storage.js";
export { type VideoRoutesOptions, videoRoutes } from "./video-routes.js";
