/**
 * The video storage GENVIDEO_VIDEO_STORAGE picks: files under the data
 * directory, served by this process at `/videos/`, or an S3-compatible bucket
 * whose presigned URLs the object store serves. An S3 bucket is checked at
 * start (one listing), so a wrong endpoint, key or bucket stops the start with
 * one line naming the setting instead of failing every render later.
 */
import { join } from "node:path";
import type { Kysely } from "kysely";
import { ConfigError, type ServerConfig } from "../config.js";
import type { Database } from "../store/tables.js";
import { LocalVideoStorage } from "../video/local-video-storage.js";
import { S3RequestError, S3VideoStorage } from "../video/s3-video-storage.js";
import type { ServedVideoStorage, VideoFileStorage } from "../video/video-file-storage.js";
import { videoSigningKey } from "./server-secrets.js";

export interface ConfiguredVideoStorage {
  storage: VideoFileStorage;
  /** Set when this process serves the downloads itself (local files). */
  served: ServedVideoStorage | undefined;
}

export async function openVideoStorage(
  config: ServerConfig,
  publicUrl: string,
  db: Kysely<Database>,
): Promise<ConfiguredVideoStorage> {
  const videosDir = join(config.dataDir, "videos");
  const setting = config.videoStorage;
  if (setting.kind === "local") {
    const storage = new LocalVideoStorage({
      dir: videosDir,
      publicUrl,
      signingKey: await videoSigningKey(db),
      ttlSeconds: config.videoUrlTtlSeconds,
      retentionMs: config.videoRetentionMs,
    });
    return { storage, served: storage };
  }
  const storage = new S3VideoStorage({
    location: setting.location,
    endpoint: setting.endpoint,
    region: setting.region,
    credentials: setting.credentials,
    stagingDir: videosDir,
    ttlSeconds: config.videoUrlTtlSeconds,
    timeScale: config.timeScale,
    retentionMs: config.videoRetentionMs,
  });
  await storage.checkAccess().catch((error: unknown) => {
    throw new ConfigError(
      `${blamedSetting(error)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  return { storage, served: undefined };
}

/** The setting an S3 failure most likely comes from. */
function blamedSetting(error: unknown): string {
  if (!(error instanceof S3RequestError) || error.status === undefined) return "GENVIDEO_S3_ENDPOINT";
  switch (error.code) {
    case "InvalidAccessKeyId":
    case "SignatureDoesNotMatch":
    case "InvalidToken":
    case "ExpiredToken":
      return "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY";
    case "AuthorizationHeaderMalformed":
    case "PermanentRedirect":
    case "IllegalLocationConstraintException":
      return "GENVIDEO_S3_REGION";
    default:
      return "GENVIDEO_VIDEO_STORAGE";
  }
}
