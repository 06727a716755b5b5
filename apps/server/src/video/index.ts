export { parseRange, type RangeRequest } from "./byte-range.js";
export {
  DEFAULT_RETENTION_MS,
  DEFAULT_URL_TTL_SECONDS,
  LocalVideoStorage,
  type LocalVideoStorageOptions,
} from "./local-video-storage.js";
export { type UrlCheck, UrlSigner } from "./url-signature.js";
export type { OpenedVideo, StoredVideoInfo, VideoFileStorage } from "./video-file-storage.js";
export { type VideoRoutesOptions, videoRoutes } from "./video-routes.js";
