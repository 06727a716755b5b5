/**
 * Videos as objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2,
 * Backblaze B2, ...), for servers whose workers and API processes run on
 * several machines: workers upload, and `video_url` is a presigned GET URL the
 * object store serves itself (Range requests, `video/mp4`, its own expiry check),
 * so no process of ours is in the download path. See docs/operating.md.
 *
 * Requests are signed with aws4fetch (SigV4 over fetch and Web Crypto, one
 * small file, no dependencies): a video is one PUT of a few megabytes at most,
 * far below the 5 GiB a single PUT takes, so nothing here needs multipart
 * uploads or the AWS SDK. URLs are presigned by `S3Presigner` (node:crypto),
 * since that runs on status reads.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { AwsClient } from "aws4fetch";
import { DEFAULT_RETENTION_MS, DEFAULT_URL_TTL_SECONDS } from "./local-video-storage.js";
import { encodeRfc3986, S3Presigner } from "./s3-presign.js";
import { deletePartialsOlderThan, removeFile, STALE_STAGING_MS, stagingFile } from "./staging-files.js";
import type { VideoFileStorage, VideoSweep } from "./video-file-storage.js";
import { assertTaskVideo, videoKeyForTask } from "./video-keys.js";

/** Where the videos go: `s3://<bucket>/<prefix>`; `prefix` is empty or ends with `/`. */
export interface S3Location {
  bucket: string;
  prefix: string;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials: URLs signed with them stop working when the session ends. */
  sessionToken?: string | undefined;
}

export interface S3VideoStorageOptions {
  location: S3Location;
  /**
   * Origin of an S3-compatible service (`https://minio.internal:9000`), addressed
   * path-style (`<endpoint>/<bucket>/<key>`). Absent: AWS S3 in `region`.
   */
  endpoint?: string | undefined;
  region: string;
  credentials: S3Credentials;
  /** Local directory the renderer writes into before the upload (`${GENVIDEO_DATA_DIR}/videos`). */
  stagingDir: string;
  /** How long a `video_url` stays valid, in seconds of service time. Default 7 days, at most 7 days of real time. */
  ttlSeconds?: number;
  /** Service milliseconds per real millisecond: the object store checks expiry on its own (real) clock. */
  timeScale?: number;
  /** How long videos are kept before `sweep` deletes them, in ms. Default 7 days. */
  retentionMs?: number;
  /** Wall clock in ms that presigned URLs are dated by. Default `Date.now`. */
  wallClock?: () => number;
  /** Keys per listing request of the sweep (S3 answers at most 1000). */
  listPageSize?: number;
}

/** SigV4 presigned URLs live at most 7 days (S3 refuses a longer `X-Amz-Expires`). */
export const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;

/** An S3 request that failed: the HTTP status and S3's error code (`NoSuchBucket`), or a network error. */
export class S3RequestError extends Error {
  override name = "S3RequestError";
  readonly status: number | undefined;
  readonly code: string | undefined;
  constructor(message: string, status?: number, code?: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const VIDEO_NAME = /^([A-Za-z0-9_-]{1,128})\.mp4$/;
/** Tasks whose last URL is remembered (see `#lastSigned`); past this the memory starts over. */
const RECENTLY_SIGNED = 4096;
const MINUTE_MS = 60_000;
const UPLOAD_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Deletes in flight at once during a sweep. */
const DELETE_CONCURRENCY = 8;

export class S3VideoStorage implements VideoFileStorage {
  readonly location: S3Location;
  readonly stagingDir: string;
  readonly ttlSeconds: number;
  readonly retentionMs: number;
  /** `X-Amz-Expires` of every URL: the TTL in real seconds plus the minute a URL may be reused for. */
  readonly presignedSeconds: number;
  readonly #bucketUrl: string;
  readonly #pathStyle: boolean;
  readonly #client: AwsClient;
  readonly #presigner: S3Presigner;
  readonly #wallClock: () => number;
  readonly #listPageSize: number;
  /**
   * The URL last signed per task, dated to the whole minute: a task polled
   * many times a minute is signed once, and clients and CDNs see one URL.
   */
  readonly #lastSigned = new Map<string, { signedAt: number; url: string }>();

  constructor(options: S3VideoStorageOptions) {
    this.location = options.location;
    this.stagingDir = options.stagingDir;
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_URL_TTL_SECONDS;
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    const realTtlSeconds = Math.max(1, Math.ceil(this.ttlSeconds / (options.timeScale ?? 1)));
    if (realTtlSeconds > MAX_PRESIGNED_SECONDS) {
      throw new RangeError(`A presigned URL lives at most 7 days; asked for ${realTtlSeconds} s`);
    }
    this.presignedSeconds = Math.min(MAX_PRESIGNED_SECONDS, realTtlSeconds + MINUTE_MS / 1000);
    this.#wallClock = options.wallClock ?? Date.now;
    this.#listPageSize = options.listPageSize ?? 1000;
    const endpoint = options.endpoint?.replace(/\/+$/, "");
    // Path-style for custom endpoints (what S3-compatible services all take); virtual-hosted for AWS,
    // except for bucket names with dots, which the wildcard certificate does not cover.
    this.#pathStyle = endpoint !== undefined || this.location.bucket.includes(".");
    const aws = `https://s3.${options.region}.amazonaws.com`;
    this.#bucketUrl = this.#pathStyle
      ? `${endpoint ?? aws}/${encodeURIComponent(this.location.bucket)}`
      : `https://${this.location.bucket}.s3.${options.region}.amazonaws.com`;
    const { accessKeyId, secretAccessKey, sessionToken } = options.credentials;
    this.#presigner = new S3Presigner(options.credentials, options.region);
    this.#client = new AwsClient({
      accessKeyId,
      secretAccessKey,
      ...(sessionToken ? { sessionToken } : {}),
      service: "s3",
      region: options.region,
      // aws4fetch retries 5xx and 429 with backoff; a few tries, each bounded by the request's timeout.
      retries: 2,
    });
  }

  /** `s3://bucket/prefix`, for logs. */
  get description(): string {
    return `s3://${this.location.bucket}/${this.location.prefix}`;
  }

  keyForTask(taskId: string): string {
    return videoKeyForTask(taskId);
  }

  async signedUrl(videoKey: string, taskId: string, _now: number): Promise<string> {
    assertTaskVideo(videoKey, taskId);
    // Dated to the start of the minute, in real time: the object store checks
    // `X-Amz-Date + X-Amz-Expires` against its own clock, not our service clock.
    const signedAt = Math.floor(this.#wallClock() / MINUTE_MS) * MINUTE_MS;
    const last = this.#lastSigned.get(taskId);
    if (last?.signedAt === signedAt) return last.url;
    const url = this.#presigner.presign(this.#objectUrl(videoKey), signedAt, this.presignedSeconds);
    if (!last && this.#lastSigned.size >= RECENTLY_SIGNED) this.#lastSigned.clear();
    this.#lastSigned.set(taskId, { signedAt, url });
    return url;
  }

  stagingPath(taskId: string): Promise<string> {
    return stagingFile(this.stagingDir, this.keyForTask(taskId));
  }

  /**
   * Uploads the finished file in one PUT with its SHA-256 signed, so the
   * store rejects a body damaged on the way, then removes the local file.
   */
  async put(taskId: string, sourcePath: string): Promise<{ videoKey: string }> {
    const videoKey = this.keyForTask(taskId);
    const body = await readFile(sourcePath);
    const response = await this.#send(this.#objectUrl(videoKey), {
      method: "PUT",
      body,
      headers: {
        "Content-Type": "video/mp4",
        "X-Amz-Content-Sha256": createHash("sha256").update(body).digest("hex"),
      },
      timeoutMs: UPLOAD_TIMEOUT_MS,
    });
    await expectOk(response, `upload of ${this.#describeKey(videoKey)}`);
    await removeFile(sourcePath);
    return { videoKey };
  }

  discard(path: string): Promise<void> {
    return removeFile(path);
  }

  /** Deletes a stored video; deleting one that is already gone is no error (S3 says 204 either way). */
  async delete(videoKey: string): Promise<void> {
    const response = await this.#send(this.#objectUrl(videoKey), {
      method: "DELETE",
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return;
    }
    await expectOk(response, `delete of ${this.#describeKey(videoKey)}`);
  }

  /**
   * The retention sweep, as of `now` (wall-clock ms): lists the videos under
   * the prefix and deletes those uploaded more than `retentionMs` ago, then
   * the stale local staging files (see LocalVideoStorage.sweep). Objects under
   * the prefix that are not `<task_id>.mp4` are never touched.
   */
  async sweep(now: number = Date.now()): Promise<VideoSweep> {
    const cutoff = now - this.retentionMs;
    const expired: string[] = [];
    for await (const object of this.#listVideos()) {
      if (object.lastModified < cutoff) expired.push(object.taskId);
    }
    const queue = [...expired];
    const deleteNext = async (): Promise<void> => {
      for (let taskId = queue.shift(); taskId !== undefined; taskId = queue.shift()) {
        await this.delete(this.keyForTask(taskId));
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, queue.length) }, deleteNext));
    const partials = await deletePartialsOlderThan(
      this.stagingDir,
      now - Math.max(this.retentionMs, STALE_STAGING_MS),
    );
    return { taskIds: expired, partials };
  }

  /**
   * Lists one key under the prefix: proves at start that the endpoint answers,
   * the credentials sign, and the bucket exists and may be listed.
   */
  async checkAccess(): Promise<void> {
    const response = await this.#send(this.#listUrl(undefined, 1), {
      method: "GET",
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    await expectOk(response, `listing ${this.description}`);
    await response.body?.cancel();
  }

  async *#listVideos(): AsyncGenerator<{ taskId: string; lastModified: number }> {
    let marker: string | undefined;
    do {
      const response = await this.#send(this.#listUrl(marker, this.#listPageSize), {
        method: "GET",
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      await expectOk(response, `listing ${this.description}`);
      const xml = await response.text();
      let lastKey: string | undefined;
      for (const [, contents = ""] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const key = decodeXml(xmlElement(contents, "Key") ?? "");
        lastKey = key;
        const name = VIDEO_NAME.exec(key.slice(this.location.prefix.length));
        const lastModified = Date.parse(xmlElement(contents, "LastModified") ?? "");
        if (!key.startsWith(this.location.prefix) || !name?.[1] || Number.isNaN(lastModified)) continue;
        yield { taskId: name[1], lastModified };
      }
      const nextMarker = xmlElement(xml, "NextMarker");
      marker =
        xmlElement(xml, "IsTruncated") === "true"
          ? nextMarker !== undefined
            ? decodeXml(nextMarker)
            : lastKey
          : undefined;
    } while (marker);
  }

  /**
   * ListObjects (version 1, with markers: every S3-compatible service takes
   * them, and a marker is just the last key), one level below the prefix,
   * where the videos are.
   */
  #listUrl(marker: string | undefined, maxKeys: number): string {
    const url = new URL(this.#pathStyle ? this.#bucketUrl : `${this.#bucketUrl}/`);
    url.searchParams.set("prefix", this.location.prefix);
    url.searchParams.set("delimiter", "/");
    url.searchParams.set("max-keys", String(maxKeys));
    if (marker) url.searchParams.set("marker", marker);
    return url.href;
  }

  #objectUrl(videoKey: string): string {
    const path = `${this.location.prefix}${videoKey}`.split("/").map(encodeRfc3986).join("/");
    return `${this.#bucketUrl}/${path}`;
  }

  #describeKey(videoKey: string): string {
    return `s3://${this.location.bucket}/${this.location.prefix}${videoKey}`;
  }

  async #send(
    url: string,
    init: {
      method: string;
      body?: Uint8Array<ArrayBuffer>;
      headers?: Record<string, string>;
      timeoutMs: number;
    },
  ): Promise<Response> {
    try {
      return await this.#client.fetch(url, {
        method: init.method,
        ...(init.body ? { body: init.body } : {}),
        ...(init.headers ? { headers: init.headers } : {}),
        signal: AbortSignal.timeout(init.timeoutMs),
      });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined) ?? error) : undefined;
      const detail = cause
        ? `${(cause as NodeJS.ErrnoException).code ?? cause.name}: ${cause.message}`
        : String(error);
      throw new S3RequestError(`${init.method} ${new URL(url).origin} failed: ${detail}`);
    }
  }
}

/** Throws an S3RequestError with S3's code and message unless the response is 2xx. */
async function expectOk(response: Response, what: string): Promise<void> {
  if (response.ok) return;
  const body = await response.text().catch(() => "");
  const code = xmlElement(body, "Code");
  const message = xmlElement(body, "Message");
  throw new S3RequestError(
    `${what} failed: ${response.status}${code ? ` ${code}` : ""}${message ? ` (${decodeXml(message)})` : ""}`,
    response.status,
    code,
  );
}

function xmlElement(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml)?.[1];
}

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (entity, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    return XML_ENTITIES[name.toLowerCase()] ?? entity;
  });
}
