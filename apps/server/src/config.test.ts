import { describe, expect, it } from "vitest";
import { ConfigError, defaultPublicUrl, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("defaults to loopback port 8787 and SQLite under ./.genvideo of the invocation directory", () => {
    const config = loadConfig({}, "/home/me/project");
    expect(config).toMatchObject({
      port: 8787,
      host: "127.0.0.1",
      dataDir: "/home/me/project/.genvideo",
      database: { kind: "sqlite", path: "/home/me/project/.genvideo/genvideo.db" },
      publicUrl: undefined,
      timeScale: 1,
      allowInsecureCallbacks: false,
      rateLimits: { enabled: true, createsPerMinute: 120, readsPerMinute: 1200 },
      workers: 2,
      logLevel: "info",
      videoRetentionMs: 7 * 24 * 3600 * 1000,
      videoUrlTtlSeconds: 7 * 24 * 3600,
      videoSweepIntervalMs: 10 * 60 * 1000,
      webhookAttemptTimeoutMs: 30_000,
      leaseMs: 10_000,
      role: "all",
    });
    expect(loadConfig({ GENVIDEO_LEASE: "2s" }, "/x").leaseMs).toBe(2000);
  });

  it.each([
    ["100", 100],
    ["300", 300],
    [" 30000 ", 30_000],
  ])("reads GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS=%s (it can only shorten the 30 s deadline)", (raw, value) => {
    expect(loadConfig({ GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: raw }, "/x").webhookAttemptTimeoutMs).toBe(
      value,
    );
  });

  it.each([
    ["7d", 7 * 86_400_000],
    ["12h", 12 * 3_600_000],
    ["30m", 30 * 60_000],
    ["90s", 90_000],
    ["1s", 1000],
    ["1.5h", 5_400_000],
    ["3600", 3_600_000],
    [" 2d ", 2 * 86_400_000],
  ])("reads GENVIDEO_VIDEO_RETENTION=%s as a duration", (raw, milliseconds) => {
    expect(loadConfig({ GENVIDEO_VIDEO_RETENTION: raw }, "/x").videoRetentionMs).toBe(milliseconds);
  });

  it("reads the video URL lifetime in whole seconds and the sweep interval in ms", () => {
    const config = loadConfig(
      { GENVIDEO_VIDEO_URL_TTL: "12h", GENVIDEO_VIDEO_SWEEP_INTERVAL: "250ms" },
      "/x",
    );
    expect(config.videoUrlTtlSeconds).toBe(43_200);
    expect(config.videoSweepIntervalMs).toBe(250);
    expect(loadConfig({ GENVIDEO_VIDEO_URL_TTL: "1500ms" }, "/x").videoUrlTtlSeconds).toBe(2);
  });

  it("takes PostgreSQL URLs and the roles they allow", () => {
    const config = loadConfig(
      {
        GENVIDEO_DATABASE_URL: "postgresql://app:s3cret@db.internal:6432/genvideo",
        GENVIDEO_ROLE: "worker",
        GENVIDEO_PG_LISTEN: "off",
        GENVIDEO_PG_POOL_SIZE: "4",
      },
      "/x",
    );
    expect(config.database).toEqual({
      kind: "postgres",
      url: "postgresql://app:s3cret@db.internal:6432/genvideo",
      redactedUrl: "postgresql://app:***@db.internal:6432/genvideo",
    });
    expect(config.role).toBe("worker");
    expect(config.postgres).toEqual({ poolSize: 4, listen: false });
    expect(loadConfig({}, "/x")).toMatchObject({ role: "all", postgres: { poolSize: 10, listen: true } });
  });

  it("resolves relative paths against the directory pnpm was run from", () => {
    const config = loadConfig({ INIT_CWD: "/repo", GENVIDEO_DATABASE_URL: "sqlite:data/x.db" });
    expect(config.database).toEqual({ kind: "sqlite", path: "/repo/data/x.db" });
    expect(loadConfig({ GENVIDEO_DATABASE_URL: "sqlite:///tmp/y.db" }, "/a").database).toEqual({
      kind: "sqlite",
      path: "/tmp/y.db",
    });
    expect(loadConfig({ GENVIDEO_DATA_DIR: "d" }, "/a").database).toEqual({
      kind: "sqlite",
      path: "/a/d/genvideo.db",
    });
  });

  it("reads every setting", () => {
    const config = loadConfig(
      {
        PORT: "0",
        HOST: "0.0.0.0",
        GENVIDEO_PUBLIC_URL: "https://video.example.com/",
        GENVIDEO_BOOTSTRAP_API_KEY: "local_dev_key_12345678",
        GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET: `whsec_${Buffer.alloc(24, 7).toString("base64")}`,
        GENVIDEO_TIME_SCALE: "600",
        GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
        GENVIDEO_RATE_LIMITS: "creates=5,reads=50",
        GENVIDEO_WORKERS: "8",
        GENVIDEO_LOG_LEVEL: "warn",
        GENVIDEO_UNSAFE_WORDS: "gore, violence",
      },
      "/x",
    );
    expect(config).toMatchObject({
      port: 0,
      publicUrl: "https://video.example.com",
      bootstrapApiKey: "local_dev_key_12345678",
      timeScale: 600,
      allowInsecureCallbacks: true,
      rateLimits: { enabled: true, createsPerMinute: 5, readsPerMinute: 50 },
      workers: 8,
      logLevel: "warn",
      unsafeWords: ["gore", "violence"],
    });
    expect(loadConfig({ GENVIDEO_RATE_LIMITS: "off" }).rateLimits.enabled).toBe(false);
  });

  it.each([
    [{ PORT: "eighty" }, /^PORT must be a whole number from 0 to 65535, got "eighty"$/],
    [{ PORT: "70000" }, /^PORT must be a whole number from 0 to 65535, got "70000"$/],
    [
      { GENVIDEO_DATABASE_URL: "postgres://u:secret@h" },
      /^GENVIDEO_DATABASE_URL must name a host and a database .*got "postgres:\/\/u:\*\*\*@h"$/,
    ],
    [{ GENVIDEO_ROLE: "api" }, /^GENVIDEO_ROLE=api needs PostgreSQL .*on SQLite one process does everything/],
    [
      { GENVIDEO_ROLE: "janitor", GENVIDEO_DATABASE_URL: "postgres://h/db" },
      /^GENVIDEO_ROLE must be all, api or worker, got "janitor"$/,
    ],
    [{ GENVIDEO_LEASE: "10ms" }, /^GENVIDEO_LEASE must be a duration/],
    [{ GENVIDEO_PG_LISTEN: "sometimes" }, /^GENVIDEO_PG_LISTEN must be 1 or 0/],
    [{ GENVIDEO_PG_POOL_SIZE: "0" }, /^GENVIDEO_PG_POOL_SIZE must be a whole number from 1 to 1000/],
    [{ GENVIDEO_DATABASE_URL: "mysql://h/db" }, /^GENVIDEO_DATABASE_URL must be sqlite:<path>/],
    [{ GENVIDEO_PUBLIC_URL: "ftp://x" }, /^GENVIDEO_PUBLIC_URL must be/],
    [{ GENVIDEO_BOOTSTRAP_API_KEY: "short" }, /^GENVIDEO_BOOTSTRAP_API_KEY must be 20 to 255/],
    [{ GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET: "whsec_abc" }, /^GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET must be/],
    [{ GENVIDEO_TIME_SCALE: "0" }, /^GENVIDEO_TIME_SCALE must be/],
    [{ GENVIDEO_TIME_SCALE: "fast" }, /^GENVIDEO_TIME_SCALE must be/],
    [{ GENVIDEO_ALLOW_INSECURE_CALLBACKS: "maybe" }, /^GENVIDEO_ALLOW_INSECURE_CALLBACKS must be/],
    [{ GENVIDEO_RATE_LIMITS: "fast" }, /^GENVIDEO_RATE_LIMITS must be/],
    [{ GENVIDEO_WORKERS: "0" }, /^GENVIDEO_WORKERS must be a whole number/],
    [
      { GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: "60000" },
      /^GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS must be a whole number from 100 to 30000, got "60000"$/,
    ],
    [
      { GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: "99" },
      /^GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS must be a whole number/,
    ],
    [
      { GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: "1.5" },
      /^GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS must be a whole number/,
    ],
    [
      { GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: "5s" },
      /^GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS must be a whole number/,
    ],
    [{ GENVIDEO_RENDERER: "ffmpeg" }, /^GENVIDEO_RENDERER must be synthetic or fixture/],
    [{ GENVIDEO_LOG_LEVEL: "loud" }, /^GENVIDEO_LOG_LEVEL must be one of/],
    [
      { GENVIDEO_VIDEO_RETENTION: "a week" },
      /^GENVIDEO_VIDEO_RETENTION must be a duration like 7d, 12h, 30m or 90s, from 1s to 3650d, got "a week"$/,
    ],
    [{ GENVIDEO_VIDEO_RETENTION: "0s" }, /^GENVIDEO_VIDEO_RETENTION must be a duration/],
    [{ GENVIDEO_VIDEO_RETENTION: "500ms" }, /^GENVIDEO_VIDEO_RETENTION must be a duration/],
    [{ GENVIDEO_VIDEO_RETENTION: "-1d" }, /^GENVIDEO_VIDEO_RETENTION must be a duration/],
    [{ GENVIDEO_VIDEO_RETENTION: "7w" }, /^GENVIDEO_VIDEO_RETENTION must be a duration/],
    [{ GENVIDEO_VIDEO_RETENTION: "4000d" }, /^GENVIDEO_VIDEO_RETENTION must be a duration/],
    [{ GENVIDEO_VIDEO_URL_TTL: "forever" }, /^GENVIDEO_VIDEO_URL_TTL must be a duration/],
    [{ GENVIDEO_VIDEO_URL_TTL: "0" }, /^GENVIDEO_VIDEO_URL_TTL must be a duration/],
    [
      { GENVIDEO_VIDEO_SWEEP_INTERVAL: "10ms" },
      /^GENVIDEO_VIDEO_SWEEP_INTERVAL must be a duration like 7d, 12h, 30m or 90s, from 100ms to 1d, got "10ms"$/,
    ],
  ])("names the setting that is wrong: %o", (env, message) => {
    expect(() => loadConfig(env, "/x")).toThrow(ConfigError);
    expect(() => loadConfig(env, "/x")).toThrow(message);
  });

  it("never echoes a secret it refuses", () => {
    expect(() => loadConfig({ GENVIDEO_BOOTSTRAP_API_KEY: "bad key with spaces!!" })).toThrow(
      /^(?!.*bad key).*$/,
    );
  });

  it("derives a reachable public URL from the listening address", () => {
    expect(defaultPublicUrl("127.0.0.1", 8787)).toBe("http://127.0.0.1:8787");
    expect(defaultPublicUrl("0.0.0.0", 80)).toBe("http://127.0.0.1:80");
    expect(defaultPublicUrl("::1", 9)).toBe("http://[::1]:9");
  });
});

describe("S3 video storage settings", () => {
  const S3 = {
    GENVIDEO_VIDEO_STORAGE: "s3://genvideo-videos/prod/renders/",
    AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "secret-example",
  };

  it("stores videos as local files unless GENVIDEO_VIDEO_STORAGE says s3://", () => {
    expect(loadConfig({}, "/x").videoStorage).toEqual({ kind: "local" });
    expect(loadConfig({ GENVIDEO_VIDEO_STORAGE: "local" }, "/x").videoStorage).toEqual({ kind: "local" });
  });

  it("reads the bucket, the prefix, the endpoint, the region and the usual AWS credentials", () => {
    const config = loadConfig(
      {
        ...S3,
        GENVIDEO_S3_ENDPOINT: "http://127.0.0.1:9000/",
        GENVIDEO_S3_REGION: "eu-west-3",
        AWS_SESSION_TOKEN: "token",
      },
      "/x",
    );
    expect(config.videoStorage).toEqual({
      kind: "s3",
      location: { bucket: "genvideo-videos", prefix: "prod/renders/" },
      endpoint: "http://127.0.0.1:9000",
      region: "eu-west-3",
      credentials: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "secret-example", sessionToken: "token" },
    });
  });

  it("takes AWS_REGION when GENVIDEO_S3_REGION is unset, else us-east-1; a bucket alone has no prefix", () => {
    const bare = loadConfig({ ...S3, GENVIDEO_VIDEO_STORAGE: "s3://bucket" }, "/x").videoStorage;
    expect(bare).toMatchObject({
      location: { bucket: "bucket", prefix: "" },
      endpoint: undefined,
      region: "us-east-1",
    });
    expect(loadConfig({ ...S3, AWS_REGION: "ap-south-1" }, "/x").videoStorage).toMatchObject({
      region: "ap-south-1",
    });
  });

  it("accepts a 7-day URL TTL, or a longer one that time scaling brings under 7 days of real time", () => {
    expect(loadConfig({ ...S3, GENVIDEO_VIDEO_URL_TTL: "7d" }, "/x").videoUrlTtlSeconds).toBe(7 * 86_400);
    expect(
      loadConfig({ ...S3, GENVIDEO_VIDEO_URL_TTL: "30d", GENVIDEO_TIME_SCALE: "600" }, "/x").videoStorage
        .kind,
    ).toBe("s3");
  });

  it.each([
    [
      { ...S3, GENVIDEO_VIDEO_STORAGE: "gs://bucket" },
      /^GENVIDEO_VIDEO_STORAGE must be local or s3:\/\/<bucket>\[\/<prefix>\], got "gs:\/\/bucket"$/,
    ],
    [{ ...S3, GENVIDEO_VIDEO_STORAGE: "s3://" }, /^GENVIDEO_VIDEO_STORAGE must be/],
    [{ ...S3, GENVIDEO_VIDEO_STORAGE: "s3://b//x" }, /^GENVIDEO_VIDEO_STORAGE must be/],
    [{ ...S3, AWS_ACCESS_KEY_ID: "" }, /^AWS_ACCESS_KEY_ID must be set/],
    [{ ...S3, AWS_SECRET_ACCESS_KEY: " " }, /^AWS_SECRET_ACCESS_KEY must be set/],
    [{ ...S3, GENVIDEO_S3_ENDPOINT: "minio:9000" }, /^GENVIDEO_S3_ENDPOINT must be an http\(s\) origin/],
    [
      { ...S3, GENVIDEO_S3_ENDPOINT: "http://h:9000/bucket" },
      /^GENVIDEO_S3_ENDPOINT must be an http\(s\) origin/,
    ],
    [{ ...S3, GENVIDEO_S3_REGION: "EU West" }, /^GENVIDEO_S3_REGION must be a region name/],
    [
      { ...S3, GENVIDEO_VIDEO_URL_TTL: "8d" },
      /^GENVIDEO_VIDEO_URL_TTL must be at most 7d of real time with s3:\/\/ video storage .*got "8d"$/,
    ],
    [
      { ...S3, GENVIDEO_TIME_SCALE: "0.5" },
      /^GENVIDEO_VIDEO_URL_TTL must be at most 7d .*got "7d" at GENVIDEO_TIME_SCALE=0.5$/,
    ],
    [
      { GENVIDEO_S3_ENDPOINT: "http://127.0.0.1:9000" },
      /^GENVIDEO_S3_ENDPOINT is set but GENVIDEO_VIDEO_STORAGE is not s3:/,
    ],
    [{ GENVIDEO_S3_REGION: "eu-west-1" }, /^GENVIDEO_S3_REGION is set but GENVIDEO_VIDEO_STORAGE is not s3:/],
  ])("names the setting that is wrong: %o", (env, message) => {
    expect(() => loadConfig(env, "/x")).toThrow(ConfigError);
    expect(() => loadConfig(env, "/x")).toThrow(message);
  });

  it("never echoes the secret access key", () => {
    expect(() => loadConfig({ ...S3, GENVIDEO_S3_ENDPOINT: "nope" }, "/x")).toThrow(
      /^(?!.*secret-example).*$/,
    );
  });
});
