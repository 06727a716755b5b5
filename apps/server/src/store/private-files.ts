/**
 * The server's data at rest is for its own user only: the database holds the
 * webhook secrets and the video-URL signing key in plaintext (an HMAC needs
 * them), so any user who can read it can forge webhooks and mint video URLs.
 * The data directory and every directory under it are made 0700, the
 * database and video files 0600, whatever the umask. The modes are asked for
 * at creation (a umask only takes bits away, and these have none it usually
 * takes); what an older version left looser is narrowed at start
 * (`tightenedDataModes`).
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";

export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** SQLite's files beside a database: it gives them the database file's mode when it makes them. */
export const SQLITE_SIDE_FILES = ["-wal", "-shm"] as const;

/** Makes `path`, and the parents it lacks, 0700. */
export function makePrivateDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}

/**
 * Creates an empty 0600 file at `path` when there is none. SQLite makes a
 * missing database 0644 less the umask, and its `-wal` and `-shm` with the
 * database's mode: creating the database first makes all three private.
 */
export function makePrivateFile(path: string): void {
  closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
}

/** A path whose mode was narrowed, as the start log reports it. */
export interface TightenedMode {
  path: string;
  /** The old and new modes, in octal (`"755"`). */
  from: string;
  to: string;
}

/** Narrows `path` to `mode` when it grants anything more; undefined when it does not, or is absent. */
export function tightenMode(path: string, mode: number): TightenedMode | undefined {
  let current: number;
  try {
    current = statSync(path).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if ((current & ~mode) === 0) return undefined;
  chmodSync(path, mode);
  return { path, from: current.toString(8), to: mode.toString(8) };
}

/**
 * Creates the data directory 0700, or narrows it (and a SQLite database's
 * files) when an earlier version left them readable by others. Files under
 * the data directory are not walked (there may be many videos): once it is
 * 0700 no other user can reach them.
 */
export function tightenedDataModes(dataDir: string, sqlitePath: string | undefined): TightenedMode[] {
  makePrivateDirectory(dataDir);
  const databaseFiles =
    sqlitePath === undefined ? [] : [sqlitePath, ...SQLITE_SIDE_FILES.map((suffix) => sqlitePath + suffix)];
  return [
    tightenMode(dataDir, PRIVATE_DIRECTORY_MODE),
    ...databaseFiles.map((path) => tightenMode(path, PRIVATE_FILE_MODE)),
  ].filter((tightened) => tightened !== undefined);
}
