import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { taskId } from "../test/support/fetch.js";
import {
  GenVideoError,
  InvalidArgumentError,
  signWebhook,
  verifyWebhook,
  type WebhookPayload,
  WebhookVerificationError,
} from "./index.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const otherSecret = "whsec_c2Vjb25kIHNlY3JldCBmb3Igcm90YXRpb24=";
const payload: WebhookPayload = {
  success: true,
  message: "Video ready",
  task_id: taskId,
  video_url: "https://example.com/v.mp4",
};
const body = JSON.stringify(payload);

/** The error `pending` rejects with, when it is of the class `isInstance` recognises. */
async function thrown<E>(pending: Promise<unknown>, isInstance: (error: unknown) => error is E): Promise<E> {
  const error = await pending.then(
    () => expect.unreachable("verifyWebhook should throw"),
    (caught: unknown) => caught,
  );
  if (!isInstance(error)) throw error;
  return error;
}

const rejection = (pending: Promise<unknown>) => thrown(pending, WebhookVerificationError.isInstance);
const misuse = (pending: Promise<unknown>) => thrown(pending, InvalidArgumentError.isInstance);

describe("verifyWebhook and signWebhook", () => {
  it("round-trips, returning the typed payload", async () => {
    const headers = await signWebhook({ payload: body, secret });
    await expect(verifyWebhook(body, headers, secret)).resolves.toEqual(payload);
  });

  it("signs an object as its JSON text", async () => {
    const headers = await signWebhook({ payload, secret, id: "msg_1", timestamp: 1_700_000_000_000 });
    expect(headers).toMatchObject({ "webhook-id": "msg_1", "webhook-timestamp": "1700000000" });
    await expect(verifyWebhook(body, headers, secret, { now: new Date(1_700_000_000_000) })).resolves.toEqual(
      payload,
    );
  });

  it("accepts the body as bytes, as an ArrayBuffer, and as a Request", async () => {
    const headers = await signWebhook({ payload: body, secret });
    const bytes = new TextEncoder().encode(body);
    await expect(verifyWebhook(bytes, headers, secret)).resolves.toEqual(payload);
    await expect(verifyWebhook(bytes.buffer, headers, secret)).resolves.toEqual(payload);
    const request = () => new Request("https://receiver.test/hook", { method: "POST", headers, body });
    await expect(verifyWebhook(request(), secret)).resolves.toEqual(payload);
    await expect(verifyWebhook(request(), new Headers(headers), [secret])).resolves.toEqual(payload);
  });

  it("reads Node-style header objects in any letter case", async () => {
    const headers = await signWebhook({ payload: body, secret });
    const nodeHeaders = {
      "Webhook-Id": headers["webhook-id"],
      "WEBHOOK-TIMESTAMP": headers["webhook-timestamp"],
      "webhook-signature": [headers["webhook-signature"]],
    };
    await expect(verifyWebhook(body, nodeHeaders, secret)).resolves.toEqual(payload);
  });

  it("accepts any of several signatures and any of several secrets", async () => {
    const signedWithOld = await signWebhook({ payload: body, secret: otherSecret, id: "msg_2" });
    const signedWithNew = await signWebhook({
      payload: body,
      secret,
      id: "msg_2",
      timestamp: Number(signedWithOld["webhook-timestamp"]) * 1000,
    });
    const both = `v1a,ignored ${signedWithOld["webhook-signature"]} ${signedWithNew["webhook-signature"]}`;
    const headers = { ...signedWithOld, "webhook-signature": both };
    await expect(verifyWebhook(body, headers, secret)).resolves.toEqual(payload);
    await expect(verifyWebhook(body, signedWithOld, [secret, otherSecret])).resolves.toEqual(payload);
    expect((await rejection(verifyWebhook(body, signedWithOld, secret))).reason).toBe("bad_signature");
  });

  it("rejects a missing header, naming it", async () => {
    const { "webhook-signature": _, ...headers } = await signWebhook({ payload: body, secret });
    const error = await rejection(verifyWebhook(body, headers, secret));
    expect(error).toMatchObject({
      reason: "missing_header",
      message: "Missing webhook header: webhook-signature",
    });
  });

  it("rejects a timestamp that is not whole seconds", async () => {
    const headers = { ...(await signWebhook({ payload: body, secret })), "webhook-timestamp": "1.7e9" };
    expect((await rejection(verifyWebhook(body, headers, secret))).reason).toBe("bad_header");
  });

  it("applies the tolerance on both sides", async () => {
    const signedAt = 1_700_000_000_000;
    const headers = await signWebhook({ payload: body, secret, timestamp: signedAt });
    const at = (now: number, tolerance?: number) => verifyWebhook(body, headers, secret, { now, tolerance });
    await expect(at(signedAt + 300_000)).resolves.toEqual(payload);
    await expect(at(signedAt - 300_000)).resolves.toEqual(payload);
    expect((await rejection(at(signedAt + 301_000))).reason).toBe("too_old");
    expect((await rejection(at(signedAt - 301_000))).reason).toBe("too_new");
    expect((await rejection(at(signedAt + 11_000, 10_000))).reason).toBe("too_old");
  });

  it("rejects a replayed (stale) webhook even with a valid signature", async () => {
    const headers = await signWebhook({ payload: body, secret, timestamp: Date.now() - 3_600_000 });
    expect((await rejection(verifyWebhook(body, headers, secret))).reason).toBe("too_old");
  });

  it("rejects an altered body and a wrong secret", async () => {
    const headers = await signWebhook({ payload: body, secret });
    const altered = body.replace("Video ready", "Video stolen");
    const tampered = await rejection(verifyWebhook(altered, headers, secret));
    expect(tampered).toMatchObject({ reason: "bad_signature", hint: undefined });
    expect((await rejection(verifyWebhook(body, headers, otherSecret))).reason).toBe("bad_signature");
  });

  it("rejects a re-serialised body and says so", async () => {
    const headers = await signWebhook({ payload: body, secret });
    const pretty = await rejection(verifyWebhook(JSON.stringify(payload, null, 2), headers, secret));
    expect(pretty.reason).toBe("bad_signature");
    expect(pretty.hint).toMatch(/re-serialised/);
    const stringified = await rejection(verifyWebhook(String(payload), headers, secret));
    expect(stringified.hint).toMatch(/object turned into a string/);
    const parsed = await rejection(verifyWebhook(payload as unknown as string, headers, secret));
    expect(parsed).toMatchObject({ reason: "bad_signature", hint: expect.stringMatching(/raw body/) });
  });

  it("rejects an authentic body that is not a payload of this API", async () => {
    for (const wrong of [
      "not json",
      JSON.stringify({ ...payload, video_url: null }),
      JSON.stringify({ success: "yes" }),
    ]) {
      const headers = await signWebhook({ payload: wrong, secret });
      expect((await rejection(verifyWebhook(wrong, headers, secret))).reason).toBe("bad_payload");
    }
  });

  it("checks the task id when asked to", async () => {
    const headers = await signWebhook({ payload: body, secret });
    await expect(verifyWebhook(body, headers, secret, { expectedTaskId: taskId })).resolves.toEqual(payload);
    const error = await rejection(verifyWebhook(body, headers, secret, { expectedTaskId: "another" }));
    expect(error.reason).toBe("unexpected_task");
  });

  it("throws a TypeError, not a verification failure, for a secret that is not base64", async () => {
    const headers = await signWebhook({ payload: body, secret });
    await expect(verifyWebhook(body, headers, "whsec_***")).rejects.toBeInstanceOf(TypeError);
    const unset = process.env.GENVIDEO_SECRET_THAT_IS_NOT_SET as string;
    await expect(verifyWebhook(body, headers, unset)).rejects.toThrow(/secret is required/);
  });
});

describe("interoperability with the standardwebhooks library", () => {
  it("verifies what standardwebhooks signs", async () => {
    const library = new Webhook(secret);
    const id = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
    const timestamp = new Date();
    const headers = {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": library.sign(id, timestamp, body),
    };
    await expect(verifyWebhook(body, headers, secret)).resolves.toEqual(payload);
  });

  it("signs what standardwebhooks verifies", async () => {
    const headers = await signWebhook({ payload: body, secret });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(payload);
    const failed: WebhookPayload = {
      success: false,
      message: "UNSAFE_CONTENT",
      task_id: taskId,
      video_url: null,
    };
    const failedHeaders = await signWebhook({ payload: failed, secret });
    expect(new Webhook(secret).verify(JSON.stringify(failed), { ...failedHeaders })).toEqual(failed);
  });

  it("agrees with standardwebhooks on a tampered body", async () => {
    const headers = await signWebhook({ payload: body, secret });
    const tampered = body.replace("true", "false");
    expect(() => new Webhook(secret).verify(tampered, { ...headers })).toThrow();
    await expect(verifyWebhook(tampered, headers, secret)).rejects.toMatchObject({ reason: "bad_signature" });
  });
});

describe("verifyWebhook's options", () => {
  const tenYearsAgo = Date.now() - 10 * 365 * 24 * 3_600_000;

  it("rejects a delivery signed ten years ago under the default tolerance", async () => {
    const headers = await signWebhook({ payload: body, secret, timestamp: tenYearsAgo });
    expect((await rejection(verifyWebhook(body, headers, secret))).reason).toBe("too_old");
  });

  it("throws InvalidArgumentError for a tolerance that is not a finite number, 0 or more", async () => {
    const headers = await signWebhook({ payload: body, secret, timestamp: tenYearsAgo });
    for (const tolerance of [Number.NaN, Number.POSITIVE_INFINITY, -1, "300000" as unknown as number]) {
      const error = await misuse(verifyWebhook(body, headers, secret, { tolerance }));
      expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "tolerance", value: tolerance });
      expect(error.message).toMatch(/^tolerance must be a finite number of milliseconds, 0 or more; got /);
      expect(GenVideoError.isInstance(error)).toBe(true);
      expect(WebhookVerificationError.isInstance(error)).toBe(false);
    }
  });

  it("throws InvalidArgumentError for a now that is not a time", async () => {
    const headers = await signWebhook({ payload: body, secret, timestamp: tenYearsAgo });
    for (const now of [Number.NaN, new Date(Number.NaN), Number.NEGATIVE_INFINITY]) {
      const error = await misuse(verifyWebhook(body, headers, secret, { now }));
      expect(error).toMatchObject({ argument: "now", value: now });
    }
    // Through the Request form too, and before the headers are looked at.
    const request = new Request("https://receiver.test/hook", { method: "POST", body });
    expect((await misuse(verifyWebhook(request, secret, { now: Number.NaN }))).argument).toBe("now");
  });

  it("accepts a tolerance of 0 and a Date for now", async () => {
    const signedAt = 1_700_000_000_000;
    const headers = await signWebhook({ payload: body, secret, timestamp: signedAt });
    await expect(
      verifyWebhook(body, headers, secret, { tolerance: 0, now: new Date(signedAt) }),
    ).resolves.toEqual(payload);
  });
});
