import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { UrlSigner } from "./url-signature.js";

const TASK = "6f1c2a9e-8a47-4c6e-9d0b-3c1e2f4a5b6c";

describe("UrlSigner", () => {
  it("signs task_id.expires with HMAC-SHA256 under a key derived from the secret", () => {
    const derived = createHmac("sha256", "server secret").update("genvideo video url v1").digest();
    const expected = createHmac("sha256", derived).update(`${TASK}.1700000000`).digest("base64url");
    const signer = new UrlSigner("server secret");
    // Signing twice with the one key object gives the same answer.
    expect(signer.sign(TASK, 1_700_000_000)).toBe(expected);
    expect(signer.sign(TASK, 1_700_000_000)).toBe(expected);
    expect(new UrlSigner(new TextEncoder().encode("server secret")).sign(TASK, 1_700_000_000)).toBe(expected);
  });

  it("accepts its own signature until it expires, and nothing else", () => {
    const signer = new UrlSigner("server secret");
    const signature = signer.sign(TASK, 1_700_000_000);
    expect(signer.check(TASK, "1700000000", signature, 1_700_000_000)).toEqual({ ok: true });
    expect(signer.check(TASK, "1700000000", signature, 1_700_000_001)).toEqual({
      ok: false,
      code: "URL_EXPIRED",
    });
    expect(signer.check(TASK, "1700000001", signature, 0)).toEqual({ ok: false, code: "INVALID_SIGNATURE" });
    expect(new UrlSigner("other secret").check(TASK, "1700000000", signature, 0)).toEqual({
      ok: false,
      code: "INVALID_SIGNATURE",
    });
    expect(() => new UrlSigner("")).toThrow();
  });
});
