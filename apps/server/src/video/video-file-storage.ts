import type { UrlCheck, VideoStorage } from "@genvideo/engine";

/** What is known about a stored video without reading it. */
export interface StoredVideoInfo {
  size: number;
  /** Wall-clock milliseconds of the last write. */
  modifiedAt: number;
  /** Strong validator, quoted: changes whenever the bytes could have. */
  etag: string;
}

/** A stored video held open, so a retention sweep cannot pull it away mid-response. */
export interface OpenedVideo extends StoredVideoInfo {
  /** The bytes from `start` to `end` inclusive (the whole video when omitted); closes the video when done. */
  stream(range?: { start: number; end: number }): ReadableStream<Uint8Array>;
  /** Releases the video when no stream is taken (HEAD, 304, 416). */
  close(): Promise<void>;
}

/** What one retention sweep deleted. */
export interface VideoSweep {
  /** Tasks whose video was deleted; their URLs now answer 404. */
  taskIds: string[];
  /** Staging files of renders that never finished. */
  partials: number;
}

/**
 * Video storage as the server needs it, whether files in a directory or
 * objects in an S3-compatible bucket: the engine's `signedUrl`, plus what the
 * renderer writes through and what the retention sweep deletes through.
 */
export interface VideoFileStorage extends VideoStorage {
  /** How long videos are kept before `sweep` deletes them, in ms. */
  readonly retentionMs: number;
  /** The key a task's video is stored under (the download URL names only the task). */
  keyForTask(taskId: string): string;
  /** A fresh local path the renderer may write a file to before `put`. */
  stagingPath(taskId: string): Promise<string>;
  /** Moves a finished file into storage as the task's video. */
  put(taskId: string, sourcePath: string): Promise<{ videoKey: string }>;
  /** Removes a staged file, ignoring one that is already gone. */
  discard(path: string): Promise<void>;
  /** The retention sweep as of `now` (wall-clock ms): deletes videos past `retentionMs` and stale staging files. */
  sweep(now?: number): Promise<VideoSweep>;
}

/**
 * Storage whose videos this server serves itself, at `/videos/:task_id.mp4`
 * with its own URL signature (local files). An object store hands out its own
 * presigned URLs instead and needs none of this.
 */
export interface ServedVideoStorage extends VideoFileStorage {
  open(videoKey: string): Promise<OpenedVideo | undefined>;
  /** Checks a download URL's `expires` and `signature` for a task at service time `now` (ms). */
  checkUrl(
    taskId: string,
    expires: string | null | undefined,
    signature: string | null | undefined,
    now: number,
  ): Promise<UrlCheck>;
}
