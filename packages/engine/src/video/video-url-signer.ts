import { encodeBase64, VIDEO_URL_TTL_MS } from "@genvideo/schema";
import { constantTimeEqual } from "../crypto/web-crypto.js";

/** Why a download URL is refused (HTTP 403), or that it may be served. */
export type UrlCheck = { ok: true } | { ok: false; code: "INVALID_SIGNATURE" | "URL_EXPIRED" };

export interface VideoUrlSignerOptions {
  /** Origin (and optional path prefix) clients reach the videos at, e.g. `http://127.0.0.1:8787`. */
  publicUrl: string;
  /** Secret the signatures derive from; keep it stable across restarts or issued URLs stop working. */
  signingKey: string | Uint8Array;
  /** How long a `video_url` stays valid, in seconds of service time. Default `VIDEO_URL_TTL_MS` (7 days). */
  ttlSeconds?: number;
  /**
   * A synchronous HMAC-SHA256, for embedders that have one (Node's `node:crypto`):
   * Web Crypto's is asynchronous, a trip to a thread pool and back for every
   * status read of a finished task, which cost a Node server a thread switch
   * and about 15 µs of CPU per read. The URLs are the same either way.
   * Default: Web Crypto.
   */
  hmacSha256?: (key: Uint8Array, message: string) => Uint8Array;
}

/** Tasks whose last URL is remembered (see `signedUrl`); past this the memory starts over. */
const RECENTLY_SIGNED = 4096;
const KEY_LABEL = "genvideo video url v1";
const encoder = new TextEncoder();

async function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    secret as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

function base64Url(bytes: ArrayBuffer | Uint8Array): string {
  return encodeBase64(new Uint8Array(bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * Signed download URLs for videos an embedder serves itself (local files, the
 * mock), on Web Crypto so it runs in Node, browsers and workers:
 * `{publicUrl}/videos/{task_id}.mp4?expires=<unix seconds>&signature=<sig>`,
 * where the signature is HMAC-SHA256 over `task_id.expires` (base64url, no
 * padding) under a key derived from the secret with a fixed label, so the same
 * secret can sign other things without a video URL signature ever being valid
 * elsewhere. The rules are in docs/renderer.md (Downloading).
 *
 * @example
 * const signer = new VideoUrlSigner({ publicUrl: "http://127.0.0.1:8787", signingKey: secret });
 * const url = await signer.signedUrl(taskId, clock.now());
 * await signer.check(taskId, expires, signature, clock.now()); // { ok: true }
 */
export class VideoUrlSigner {
  readonly publicUrl: string;
  readonly ttlSeconds: number;
  readonly #key: Promise<CryptoKey> | undefined;
  /** With a synchronous HMAC: the derived key and the message's signature, no promise involved. */
  readonly #signNow: ((message: string) => Uint8Array) | undefined;
  /**
   * The URL last signed per task: it changes once a minute (see `signedUrl`),
   * so a task polled many times a minute is signed once, not once a read.
   */
  readonly #lastSigned = new Map<string, { expires: number; url: string }>();

  constructor(options: VideoUrlSignerOptions) {
    if (options.signingKey.length === 0) throw new Error("The video URL signing key must not be empty");
    this.publicUrl = options.publicUrl.replace(/\/+$/, "");
    this.ttlSeconds = options.ttlSeconds ?? VIDEO_URL_TTL_MS / 1000;
    const secret =
      typeof options.signingKey === "string" ? encoder.encode(options.signingKey) : options.signingKey;
    const { hmacSha256 } = options;
    if (hmacSha256) {
      const derived = hmacSha256(secret, KEY_LABEL);
      this.#signNow = (message) => hmacSha256(derived, message);
      return;
    }
    this.#key = hmacKey(secret)
      .then((key) => crypto.subtle.sign("HMAC", key, encoder.encode(KEY_LABEL)))
      .then((derived) => hmacKey(new Uint8Array(derived)));
  }

  /** The signature of `task_id.expires`. */
  async sign(taskId: string, expires: number): Promise<string> {
    return (
      this.#signatureNow(taskId, expires) ??
      base64Url(
        await crypto.subtle.sign(
          "HMAC",
          (await this.#key) as CryptoKey,
          encoder.encode(`${taskId}.${expires}`),
        ),
      )
    );
  }

  /** The signature of `task_id.expires` when the HMAC is synchronous, else undefined. */
  #signatureNow(taskId: string, expires: number): string | undefined {
    return this.#signNow && base64Url(this.#signNow(`${taskId}.${expires}`));
  }

  /**
   * The URL of a task's video at service time `now` (ms). `expires` is
   * rounded up to the whole minute: polls of one task within a minute get the
   * same URL, which clients and CDNs can cache and which is signed once. A URL
   * lives its TTL and up to 59 s more.
   *
   * The URL itself, not a promise, when it was signed this minute already or the HMAC is
   * synchronous: a status read of a completed task then settles no promise for it.
   */
  signedUrl(taskId: string, now: number): string | Promise<string> {
    const expires = Math.ceil((Math.floor(now / 1000) + this.ttlSeconds) / 60) * 60;
    const last = this.#lastSigned.get(taskId);
    if (last?.expires === expires) return last.url;
    const signature = this.#signatureNow(taskId, expires);
    if (signature !== undefined) return this.#remember(taskId, expires, signature, last);
    return this.sign(taskId, expires).then((signed) => this.#remember(taskId, expires, signed, last));
  }

  /** The URL of `taskId`'s video with `signature`, remembered for the rest of its minute. */
  #remember(
    taskId: string,
    expires: number,
    signature: string,
    last: { expires: number; url: string } | undefined,
  ): string {
    const url = `${this.publicUrl}/videos/${encodeURIComponent(taskId)}.mp4?expires=${expires}&signature=${signature}`;
    if (!last && this.#lastSigned.size >= RECENTLY_SIGNED) this.#lastSigned.clear();
    this.#lastSigned.set(taskId, { expires, url });
    return url;
  }

  /**
   * Checks a download URL's `expires` and `signature` query values at service
   * time `now` (ms). The signature is checked before the expiry, so a forged
   * URL never learns whether its time is still valid; the comparison takes
   * the same time wherever the strings differ.
   */
  async check(
    taskId: string,
    expires: string | null | undefined,
    signature: string | null | undefined,
    now: number,
  ): Promise<UrlCheck> {
    if (!expires || !signature || !/^[1-9]\d{0,14}$/.test(expires))
      return { ok: false, code: "INVALID_SIGNATURE" };
    if (!constantTimeEqual(signature, await this.sign(taskId, Number(expires))))
      return { ok: false, code: "INVALID_SIGNATURE" };
    if (Number(expires) < Math.floor(now / 1000)) return { ok: false, code: "URL_EXPIRED" };
    return { ok: true };
  }
}
