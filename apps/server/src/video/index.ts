export { LocalVideoStorage, type LocalVideoStorageOptions } from "./local-video-storage.js";
export { createRetentionSweeper, type RetentionSweeper, type SweepableStorage } from "./retention-sweeper.js";
export {
  type S3Credentials,
  type S3Location,
  S3RequestError,
  S3VideoStorage,
  type S3VideoStorageOptions,
} from "./s3-video-storage.js";
export type {
  OpenedVideo,
  ServedVideoStorage,
  StoredVideoInfo,
  VideoFileStorage,
  VideoSweep,
} from "./video-file-storage.js";
export { type VideoRoutesOptions, videoRoutes } from "./video-routes.js";
