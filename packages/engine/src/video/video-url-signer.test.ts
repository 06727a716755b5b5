import { VIDEO_URL_TTL_MS } from "@genvideo/schema";
import { describe, expect, it } from "vitest";
import { VideoUrlSigner } from "./video-url-signer.js";

const TASK = "6f1c2a9e-8a47-4c6e-9d0b-3c1e2f4a5b6c";
const NOW = Date.UTC(2026, 10, 22, 12, 0, 30);
const signer = new VideoUrlSigner({ publicUrl: "http://127.0.0.1:8787/", signingKey: "server secret" });

function queryOf(url: string): { expires: string; signature: string } {
  const query = new URL(url).searchParams;
  return { expires: query.get("expires") ?? "", signature: query.get("signature") ?? "" };
}

describe("VideoUrlSigner", () => {
  it("signs task_id.expires with HMAC-SHA256 under a key derived from the secret", async () => {
    // HMAC-SHA256("genvideo video url v1") under "server secret" is the key; URLs issued before keep working.
    const expected = "5ylfnyQ-2hAkfaRASkbYZoGtqFSNRswFAbhHy2roBEs";
    expect(await signer.sign(TASK, 1_700_000_000)).toBe(expected);
    const fromBytes = new VideoUrlSigner({
      publicUrl: "https://x.test",
      signingKey: new TextEncoder().encode("server secret"),
    });
    expect(await fromBytes.sign(TASK, 1_700_000_000)).toBe(expected);
  });

  it("hands out URLs valid for VIDEO_URL_TTL_MS, rounded up to the minute, the same for a minute", async () => {
    const url = await signer.signedUrl(TASK, NOW);
    expect(url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:8787/videos/${TASK}\\.mp4\\?expires=\\d+&signature=[\\w-]{43}$`),
    );
    const { expires } = queryOf(url);
    expect(Number(expires) % 60).toBe(0);
    expect(Number(expires) - NOW / 1000).toBeGreaterThanOrEqual(VIDEO_URL_TTL_MS / 1000);
    expect(Number(expires) - NOW / 1000).toBeLessThan(VIDEO_URL_TTL_MS / 1000 + 60);
    expect(await signer.signedUrl(TASK, NOW + 29_000)).toBe(url);
    expect(await signer.signedUrl(TASK, NOW + 31_000)).not.toBe(url);
  });

  it("hands over a URL at hand as it is: signed this minute, or by a synchronous HMAC", async () => {
    const signed = await signer.signedUrl(TASK, NOW);
    expect(signer.signedUrl(TASK, NOW + 1_000)).toBe(signed);
    const synchronous = new VideoUrlSigner({
      publicUrl: "http://127.0.0.1:8787/",
      signingKey: "server secret",
      hmacSha256: (_key, message) => new TextEncoder().encode(message),
    });
    const url = synchronous.signedUrl(TASK, NOW);
    expect(typeof url).toBe("string");
    expect(await synchronous.sign(TASK, Number(queryOf(url as string).expires))).toBe(
      queryOf(url as string).signature,
    );
  });

  it("accepts its own URL until it expires, and refuses anything else as INVALID_SIGNATURE", async () => {
    const { expires, signature } = queryOf(await signer.signedUrl(TASK, NOW));
    const expiresAt = Number(expires) * 1000;
    expect(await signer.check(TASK, expires, signature, NOW)).toEqual({ ok: true });
    expect(await signer.check(TASK, expires, signature, expiresAt + 999)).toEqual({ ok: true });
    expect(await signer.check(TASK, expires, signature, expiresAt + 1000)).toEqual({
      ok: false,
      code: "URL_EXPIRED",
    });
    const invalid = { ok: false, code: "INVALID_SIGNATURE" };
    const flipped = signature.endsWith("A") ? `${signature.slice(0, -1)}B` : `${signature.slice(0, -1)}A`;
    expect(await signer.check(TASK, expires, flipped, NOW)).toEqual(invalid);
    expect(await signer.check(TASK, String(Number(expires) + 60), signature, NOW)).toEqual(invalid);
    expect(await signer.check(TASK.replace("6f", "7f"), expires, signature, NOW)).toEqual(invalid);
    expect(await signer.check(TASK, undefined, signature, NOW)).toEqual(invalid);
    expect(await signer.check(TASK, expires, null, NOW)).toEqual(invalid);
    expect(await signer.check(TASK, expires, `${signature}=`, NOW)).toEqual(invalid);
    expect(await signer.check(TASK, `0${expires}`, signature, NOW)).toEqual(invalid);
    // A forged URL learns nothing about expiry: an expired forgery is still INVALID_SIGNATURE.
    expect(await signer.check(TASK, expires, flipped, expiresAt + 60_000)).toEqual(invalid);
    const other = new VideoUrlSigner({ publicUrl: "http://127.0.0.1:8787", signingKey: "other secret" });
    expect(await other.check(TASK, expires, signature, NOW)).toEqual(invalid);
  });

  it("refuses an empty signing key", () => {
    expect(() => new VideoUrlSigner({ publicUrl: "https://x.test", signingKey: "" })).toThrow(
      /must not be empty/,
    );
    expect(() => new VideoUrlSigner({ publicUrl: "https://x.test", signingKey: new Uint8Array() })).toThrow();
  });
});
