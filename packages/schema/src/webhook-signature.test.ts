import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signWebhook, webhookSecretBytes } from "./webhook-signature.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const otherSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
const signedAt = 1_767_225_600_000;

describe("signWebhook", () => {
  it("signs exactly as the Standard Webhooks reference library does", async () => {
    const body = JSON.stringify({
      success: true,
      message: "Vidéo ✓",
      task_id: "t",
      video_url: "https://x/y",
    });
    const headers = await signWebhook({ payload: body, secret, id: "msg_1", timestamp: signedAt });
    expect(headers["webhook-signature"]).toBe(new Webhook(secret).sign("msg_1", new Date(signedAt), body));
    expect(headers).toEqual({
      "content-type": "application/json",
      "webhook-id": "msg_1",
      "webhook-timestamp": "1767225600",
      "webhook-signature": expect.stringMatching(/^v1,/),
    });
  });

  it("signs the same bytes whether the body is a string, its UTF-8 bytes or the object it encodes", async () => {
    const payload = { success: true as const, message: "ok", task_id: "t", video_url: "https://x/y" };
    const text = JSON.stringify(payload);
    const common = { secret, id: "msg_2", timestamp: new Date(signedAt) };
    const [fromText, fromBytes, fromObject] = await Promise.all([
      signWebhook({ ...common, payload: text }),
      signWebhook({ ...common, payload: new TextEncoder().encode(text) }),
      signWebhook({ ...common, payload }),
    ]);
    expect(fromBytes).toEqual(fromText);
    expect(fromObject).toEqual(fromText);
  });

  it("signs once per secret, in the order given, joined with spaces, each verifiable alone", async () => {
    const headers = await signWebhook({
      payload: "{}",
      secret: [secret, otherSecret],
      id: "msg_3",
      timestamp: signedAt,
    });
    expect(headers["webhook-signature"]).toBe(
      [secret, otherSecret].map((one) => new Webhook(one).sign("msg_3", new Date(signedAt), "{}")).join(" "),
    );
  });

  it("defaults the id to msg_ and a UUID, and the time to now", async () => {
    const before = Math.floor(Date.now() / 1000);
    const headers = await signWebhook({ payload: "{}", secret });
    expect(headers["webhook-id"]).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(Number(headers["webhook-timestamp"])).toBeGreaterThanOrEqual(before);
    expect(Number(headers["webhook-timestamp"])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it("refuses a secret that is not whsec_<base64>, and a missing one, before signing anything", async () => {
    await expect(signWebhook({ payload: "{}", secret: "plain" })).rejects.toThrow(/whsec_/);
    await expect(signWebhook({ payload: "{}", secret: [secret, "whsec_"] })).rejects.toThrow(/whsec_/);
    await expect(signWebhook({ payload: "{}", secret: undefined as unknown as string })).rejects.toThrow(
      /required/,
    );
  });
});

describe("webhookSecretBytes", () => {
  it("decodes the base64 after whsec_, and the bare base64 alike", () => {
    expect(webhookSecretBytes("whsec_QUJD")).toEqual(new Uint8Array([65, 66, 67]));
    expect(webhookSecretBytes("QUJD")).toEqual(new Uint8Array([65, 66, 67]));
  });

  it.each(["whsec_", "whsec_QU JD", "whsec_-_-_"])("refuses %j", (text) => {
    expect(() => webhookSecretBytes(text)).toThrow(TypeError);
  });
});
