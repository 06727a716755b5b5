/**
 * GENVIDEO_VIDEO_STORAGE and the S3 settings that go with it, read only when it says `s3://`.
 * An object store checks a presigned URL's expiry on its own clock, in real time, and takes at
 * most 7 days: the URL lifetime, in service time, must fit once scaled.
 */
import { MAX_PRESIGNED_SECONDS, type S3Credentials, type S3Location } from "../video/s3-video-storage.js";
import { ConfigError, type Parser, text } from "./parsers.js";
import { type Environment, readSettings, setting } from "./setting.js";

/** Where videos live: files under the data directory, or an S3-compatible bucket every machine reaches. */
export type VideoStorageSetting =
  | { kind: "local" }
  | {
      kind: "s3";
      location: S3Location;
      /** Absent: AWS S3 itself. */
      endpoint: string | undefined;
      region: string;
      credentials: S3Credentials;
    };

type VideoStorageKind = { kind: "local" } | { kind: "s3"; location: S3Location };

export const videoStorage: Parser<VideoStorageKind> = (raw, name) => {
  const trimmed = raw.trim();
  if (trimmed === "local") return { kind: "local" };
  // Bucket names as S3-compatible services allow them (AWS is stricter; it refuses what it does not take).
  const match = /^s3:\/\/([A-Za-z0-9][A-Za-z0-9._-]{1,254})(?:\/(.*))?$/.exec(trimmed);
  const bucket = match?.[1];
  const prefix = (match?.[2] ?? "").replace(/\/+$/, "");
  if (!bucket || prefix.startsWith("/") || prefix.includes("//")) {
    throw new ConfigError(`${name} must be local or s3://<bucket>[/<prefix>], got "${trimmed}"`);
  }
  return { kind: "s3", location: { bucket, prefix: prefix ? `${prefix}/` : "" } };
};

const origin: Parser<string> = (raw, name) => {
  const trimmed = raw.trim();
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.pathname !== "/" ||
    url.search ||
    url.hash ||
    url.username
  ) {
    throw new ConfigError(
      `${name} must be an http(s) origin such as https://minio.example.com:9000, got "${trimmed}"`,
    );
  }
  return url.origin;
};

const region: Parser<string> = (raw, name) => {
  const trimmed = raw.trim();
  if (!/^[a-z0-9-]{1,64}$/.test(trimmed)) {
    throw new ConfigError(`${name} must be a region name such as eu-west-1 or auto, got "${trimmed}"`);
  }
  return trimmed;
};

export const S3_SETTINGS = {
  endpoint: setting<string, undefined>({
    name: "GENVIDEO_S3_ENDPOINT",
    default: undefined,
    parse: origin,
    description: "Origin of an S3-compatible service; AWS S3 itself when unset.",
  }),
  region: setting({
    name: "GENVIDEO_S3_REGION",
    aliases: ["AWS_REGION", "AWS_DEFAULT_REGION"],
    // What most S3-compatible services expect.
    default: "us-east-1",
    parse: region,
    description: "Region the requests and URLs are signed for (auto for R2).",
  }),
  accessKeyId: setting<string, undefined>({
    name: "AWS_ACCESS_KEY_ID",
    default: undefined,
    parse: text,
    description: "Credentials for s3:// storage; required with it.",
  }),
  secretAccessKey: setting<string, undefined>({
    name: "AWS_SECRET_ACCESS_KEY",
    default: undefined,
    parse: text,
    description: "Credentials for s3:// storage; required with it.",
  }),
  sessionToken: setting<string, undefined>({
    name: "AWS_SESSION_TOKEN",
    default: undefined,
    parse: text,
    description: "Credentials for s3:// storage: temporary ones carry a session token.",
  }),
};

/** Settings that mean nothing without s3:// storage: set with local files, they are a mistake. */
const S3_ONLY = [S3_SETTINGS.endpoint.name, S3_SETTINGS.region.name];

/**
 * The video storage: local files, or S3 with its settings. `urlTtlSeconds` is the lifetime of a
 * video URL in service time, which runs `timeScale` times faster than real time.
 */
export function readVideoStorage(
  env: Environment,
  kind: VideoStorageKind,
  urlTtlSeconds: number,
  timeScale: number,
): VideoStorageSetting {
  if (kind.kind === "local") {
    const stray = S3_ONLY.find((name) => env[name]?.trim());
    if (stray)
      throw new ConfigError(`${stray} is set but GENVIDEO_VIDEO_STORAGE is not s3://<bucket>/<prefix>`);
    return kind;
  }
  if (Math.ceil(urlTtlSeconds / timeScale) > MAX_PRESIGNED_SECONDS) {
    const scaled = timeScale === 1 ? "" : ` at GENVIDEO_TIME_SCALE=${timeScale}`;
    throw new ConfigError(
      `GENVIDEO_VIDEO_URL_TTL must be at most 7d of real time with s3:// video storage (the longest a presigned URL lives), got "${env.GENVIDEO_VIDEO_URL_TTL?.trim() || "7d"}"${scaled}`,
    );
  }
  const values = readSettings(env, S3_SETTINGS);
  return {
    kind: "s3",
    location: kind.location,
    endpoint: values.endpoint,
    region: values.region,
    credentials: credentials(values),
  };
}

function credentials(values: {
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  sessionToken: string | undefined;
}): S3Credentials {
  const { accessKeyId, secretAccessKey, sessionToken } = values;
  for (const [name, value] of [
    [S3_SETTINGS.accessKeyId.name, accessKeyId],
    [S3_SETTINGS.secretAccessKey.name, secretAccessKey],
  ] as const) {
    if (!value) {
      throw new ConfigError(
        `${name} must be set: GENVIDEO_VIDEO_STORAGE=s3://... signs with the AWS credentials`,
      );
    }
  }
  return {
    accessKeyId: accessKeyId as string,
    secretAccessKey: secretAccessKey as string,
    ...(sessionToken ? { sessionToken } : {}),
  };
}
