/**
 * The local files a render goes through before its video is stored: every
 * storage (a directory or an object store) has the renderer write into
 * `.staging/` under its local directory first, so a download never sees half
 * a video, and a crash leaves only `.partial` files for the sweep to remove.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { makePrivateDirectory } from "../store/private-files.js";

const STAGING = ".staging";
/** A staging file untouched this long belongs to no render in progress (ffmpeg writes it every few seconds). */
export const STALE_STAGING_MS = 60 * 60 * 1000;

/**
 * A fresh path in `dir/.staging/` for the file that becomes `videoKey`. The folder is checked for
 * every file rather than remembered, so one removed from outside while the server runs is made
 * again for the next video: one `access` system call while it is there, where asking `mkdir` took
 * two (a `mkdir` that finds it, then a `stat`).
 */
export async function stagingFile(dir: string, videoKey: string): Promise<string> {
  const staging = join(dir, STAGING);
  if (!existsSync(staging)) ensureDirectory(staging);
  return join(staging, `${videoKey}.${randomUUID()}.partial`);
}

/**
 * Makes a folder (0700) and its missing parents, synchronously: a few microseconds,
 * where the asynchronous `mkdir` took a trip through the thread pool per video (a
 * tenth of a worker's CPU at hundreds of renders a second).
 */
export function ensureDirectory(path: string): void {
  makePrivateDirectory(path);
}

/** Removes a file, ignoring one that is already gone. */
export async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/** Deletes the `.partial` files in `dir/.staging/` and in `dir` last written before `time`; returns how many. */
export async function deletePartialsOlderThan(dir: string, time: number): Promise<number> {
  const staged = await deleteFilesOlderThan(join(dir, STAGING), ".partial", time);
  const copies = await deleteFilesOlderThan(dir, ".partial", time);
  return staged.length + copies.length;
}

/** Deletes the files named `*<suffix>` in `folder` last written before `time`; returns their names. */
export async function deleteFilesOlderThan(folder: string, suffix: string, time: number): Promise<string[]> {
  const deleted: string[] = [];
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.endsWith(suffix)) continue;
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile() || info.mtimeMs >= time) continue;
    await removeFile(path);
    deleted.push(name);
  }
  return deleted;
}
