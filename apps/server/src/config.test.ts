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
    });
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

  it("resolves relative paths against the directory pnpm was run from", () => {
    const config = loadConfig({ INIT_CWD: "/repo", GENVIDEO_DATABASE_URL: "sqlite:data/x.db" });
    expect(config.database.path).toBe("/repo/data/x.db");
    expect(loadConfig({ GENVIDEO_DATABASE_URL: "sqlite:///tmp/y.db" }, "/a").database.path).toBe("/tmp/y.db");
    expect(loadConfig({ GENVIDEO_DATA_DIR: "d" }, "/a").database.path).toBe("/a/d/genvideo.db");
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
      { GENVIDEO_DATABASE_URL: "postgres://u:p@h/db" },
      /^GENVIDEO_DATABASE_URL: PostgreSQL is not supported yet/,
    ],
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
