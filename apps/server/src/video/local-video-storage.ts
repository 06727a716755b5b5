import { createHmac, randomUUID } from "node:crypto";
import { chmodSync, constants, renameSync } from "node:fs";
import { copyFile, type FileHandle, open, readdir, rename, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { type UrlCheck, VideoUrlSigner } from "@genvideo/engine";
import { VIDEO_URL_TTL_MS } from "@genvideo/schema";
import { PRIVATE_FILE_MODE } from "../store/private-files.js";
import {
  deleteFilesOlderThan,
  deletePartialsOlderThan,
  ensureDirectory,
  removeFile,
  STALE_STAGING_MS,
  stagingFile,
} from "./staging-files.js";
import type { OpenedVideo, ServedVideoStorage, StoredVideoInfo, VideoSweep } from "./video-file-storage.js";
import { assertTaskVideo, videoKeyForTask } from "./video-keys.js";

export const DEFAULT_URL_TTL_SECONDS: number = VIDEO_URL_TTL_MS / 1000;
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface LocalVideoStorageOptions {
  /** Directory for the videos, e.g. `${GENVIDEO_DATA_DIR}/videos`; created when missing. */
  dir: string;
  /** Origin (and optional path prefix) clients reach the server at, e.g. `http://127.0.0.1:8787`. */
  publicUrl: string;
  /** Server secret the URL signatures derive from; keep it stable across restarts or old URLs break. */
  signingKey: string | Uint8Array;
  /** How long a `video_url` stays valid, in seconds of service time. Default 7 days. */
  ttlSeconds?: number;
  /** How long videos are kept before `sweep` deletes them, in ms. Default 7 days. */
  retentionMs?: number;
}

function etagOf(size: number, modifiedAt: number): string {
  return `"${size.toString(16)}-${Math.floor(modifiedAt).toString(16)}"`;
}

/**
 * Videos as files named `<task_id>.mp4`, two folder levels down from the
 * videos directory, named by the first two and the next two characters of the
 * task id (`3f/6c/3f6c2a1e-….mp4`): task ids are random, so at three million
 * videos (7 days at 5 tasks a second) each of the 65 536 folders holds about
 * 46 files, where one flat directory held them all. Videos an earlier version
 * wrote flat in the directory are still found, served and swept where they
 * are. Files being written are kept in `.staging/` on the same file system so
 * `put` is an atomic rename: a download never sees half a video.
 */
export class LocalVideoStorage implements ServedVideoStorage {
  readonly dir: string;
  readonly publicUrl: string;
  readonly ttlSeconds: number;
  readonly retentionMs: number;
  /** Signs and checks the download URLs this server serves itself (see `videoRoutes`). */
  readonly #signer: VideoUrlSigner;
  readonly #shards = new ShardFolders();

  constructor(options: LocalVideoStorageOptions) {
    this.dir = options.dir;
    this.publicUrl = options.publicUrl.replace(/\/+$/, "");
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_URL_TTL_SECONDS;
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.#signer = new VideoUrlSigner({
      publicUrl: this.publicUrl,
      signingKey: options.signingKey,
      ttlSeconds: this.ttlSeconds,
      // node:crypto's HMAC, not Web Crypto's: no thread-pool trip per status read of a finished task.
      hmacSha256: (key, message) => createHmac("sha256", key).update(message).digest(),
    });
  }

  keyForTask(taskId: string): string {
    return videoKeyForTask(taskId);
  }

  signedUrl(videoKey: string, taskId: string, now: number): string | Promise<string> {
    assertTaskVideo(videoKey, taskId);
    return this.#signer.signedUrl(taskId, now);
  }

  checkUrl(
    taskId: string,
    expires: string | null | undefined,
    signature: string | null | undefined,
    now: number,
  ): Promise<UrlCheck> {
    return this.#signer.check(taskId, expires, signature, now);
  }

  stagingPath(taskId: string): Promise<string> {
    return stagingFile(this.dir, this.keyForTask(taskId));
  }

  /** Where `put` keeps a video: in its shard folder (two levels of the task id's first characters). */
  pathOf(videoKey: string): string {
    return join(this.dir, ...shardOf(videoKey), videoKey);
  }

  async put(taskId: string, sourcePath: string): Promise<{ videoKey: string }> {
    const videoKey = this.keyForTask(taskId);
    const target = this.pathOf(videoKey);
    // The renderer (ffmpeg, a child) made the file under the process's umask. Synchronous: one
    // system call on the inode just written, a few microseconds, where the thread pool's trip cost a
    // worker about 20 µs of CPU per video.
    chmodSync(sourcePath, PRIVATE_FILE_MODE);
    try {
      this.#shards.renameInto(sourcePath, target);
    } catch (error) {
      // A staging file from another file system (a caller's temp dir) cannot be renamed in.
      if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
      ensureDirectory(dirname(target));
      const incoming = `${target}.${randomUUID()}.partial`;
      await copyFile(sourcePath, incoming, constants.COPYFILE_FICLONE);
      await rename(incoming, target);
      await unlink(sourcePath);
    }
    return { videoKey };
  }

  discard(path: string): Promise<void> {
    return removeFile(path);
  }

  /** Where a video may be: in its shard, else flat in the directory (written by an earlier version). */
  #pathsOf(videoKey: string): string[] {
    if (!/^[A-Za-z0-9_-]{1,128}\.mp4$/.test(videoKey)) return [];
    return [this.pathOf(videoKey), join(this.dir, videoKey)];
  }

  async stat(videoKey: string): Promise<StoredVideoInfo | undefined> {
    for (const path of this.#pathsOf(videoKey)) {
      const info = await stat(path).catch(() => undefined);
      if (info) return { size: info.size, modifiedAt: info.mtimeMs, etag: etagOf(info.size, info.mtimeMs) };
    }
    return undefined;
  }

  async open(videoKey: string): Promise<OpenedVideo | undefined> {
    const handle = await this.#openFirst(videoKey);
    if (!handle) return undefined;
    const info = await handle.stat();
    let taken = false;
    return {
      size: info.size,
      modifiedAt: info.mtimeMs,
      etag: etagOf(info.size, info.mtimeMs),
      stream(range) {
        taken = true;
        const nodeStream = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
        return Readable.toWeb(nodeStream) as unknown as ReadableStream<Uint8Array>;
      },
      async close() {
        if (!taken) await handle.close();
      },
    };
  }

  async #openFirst(videoKey: string): Promise<FileHandle | undefined> {
    for (const path of this.#pathsOf(videoKey)) {
      const handle = await open(path, "r").catch(() => undefined);
      if (handle) return handle;
    }
    return undefined;
  }

  async delete(videoKey: string): Promise<boolean> {
    for (const path of this.#pathsOf(videoKey)) {
      try {
        await unlink(path);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    return false;
  }

  async deleteOlderThan(time: number): Promise<number> {
    const { videos, partials } = await this.#deleteOlderThan(time, time);
    return videos.length + partials;
  }

  /** The videos directory and each shard folder in it: where videos and their partial copies are. */
  async #folders(): Promise<string[]> {
    const folders = [this.dir];
    for (const first of await shardNames(this.dir)) {
      for (const second of await shardNames(join(this.dir, first)))
        folders.push(join(this.dir, first, second));
    }
    return folders;
  }

  async #deleteOlderThan(videosBefore: number, partialsBefore: number) {
    const videos: string[] = [];
    let partials = await deletePartialsOlderThan(this.dir, partialsBefore);
    for (const folder of await this.#folders()) {
      videos.push(...(await deleteFilesOlderThan(folder, ".mp4", videosBefore)));
      if (folder !== this.dir)
        partials += (await deleteFilesOlderThan(folder, ".partial", partialsBefore)).length;
    }
    return { videos, partials };
  }

  /**
   * The retention sweep, as of `now` (wall-clock ms): deletes videos last
   * written more than `retentionMs` ago, and staging files left behind by a
   * render that never finished (a crash) once they are both older than the
   * retention and than an hour, so a render in progress is never pulled away
   * even under a retention of seconds. Returns the task ids whose video went.
   */
  async sweep(now: number = Date.now()): Promise<VideoSweep> {
    const { videos, partials } = await this.#deleteOlderThan(
      now - this.retentionMs,
      now - Math.max(this.retentionMs, STALE_STAGING_MS),
    );
    return { taskIds: videos.map((name) => name.slice(0, -".mp4".length)), partials };
  }
}

/** The two folder names a video's file is under: the first two and the next two characters of its task id. */
function shardOf(videoKey: string): [string, string] {
  const id = videoKey.slice(0, -".mp4".length).padEnd(4, "_");
  return [id.slice(0, 2), id.slice(2, 4)];
}

/** The shard folders in `folder` (two id characters each; `.staging` and files are not). */
async function shardNames(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory() && /^[A-Za-z0-9_-]{2}$/.test(entry.name))
    .map((e) => e.name);
}

/** Shard folders this process made or found (at most 65 536 for task ids in hex, as UUIDs are). */
const MAX_KNOWN_SHARDS = 65_536;

/**
 * The shard folders known to exist, so a video is renamed into its folder without asking for the
 * folder first: that ask cost two system calls per video (a `mkdir` that finds it, and a `stat`),
 * and a rename that fails for a missing folder costs an exception, dearer still. A folder removed
 * from outside while the server runs fails the rename, and is made again. The rename is
 * synchronous, as the `chmod` before it: one system call that never moves data, where a trip
 * through the thread pool and back woke two threads per video.
 */
class ShardFolders {
  readonly #known = new Set<string>();

  renameInto(sourcePath: string, target: string): void {
    const folder = dirname(target);
    if (!this.#known.has(folder)) {
      this.#makeAndRename(folder, sourcePath, target);
      return;
    }
    try {
      renameSync(sourcePath, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      this.#makeAndRename(folder, sourcePath, target);
    }
  }

  #makeAndRename(folder: string, sourcePath: string, target: string): void {
    ensureDirectory(folder);
    if (this.#known.size >= MAX_KNOWN_SHARDS) this.#known.clear();
    this.#known.add(folder);
    renameSync(sourcePath, target);
  }
}
