import type { VideoStorage } from "@genvideo/engine";
import type { UrlCheck } from "./url-signature.js";

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

/**
 * Video storage as the server needs it: the engine's `signedUrl`, plus what
 * the renderer writes through and the download route reads through. Local
 * directory now; an object store can implement the same surface later.
 */
export interface VideoFileStorage extends VideoStorage {
  /** The key a task's video is stored under (the download URL names only the task). */
  keyForTask(taskId: string): string;
  /** A fresh local path the renderer may write a file to before `put`. */
  stagingPath(taskId: string): Promise<string>;
  /** Moves a finished file into storage as the task's video. */
  put(taskId: string, sourcePath: string): Promise<{ videoKey: string }>;
  /** Removes a staged or stored file, ignoring one that is already gone. */
  discard(path: string): Promise<void>;
  open(videoKey: string): Promise<OpenedVideo | undefined>;
  delete(videoKey: string): Promise<boolean>;
  /** Deletes videos last written before `time` (wall-clock ms); returns how many. */
  deleteOlderThan(time: number): Promise<number>;
  /** Checks a download URL's `expires` and `signature` for a task at service time `now` (ms). */
  checkUrl(taskId: string, expires: string | undefined, signature: string | undefined, now: number): UrlCheck;
}
