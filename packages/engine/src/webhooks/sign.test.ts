import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../keys/webhook-secret.js";
import { signWebhook } from "./sign.js";

describe("signWebhook", () => {
  it("signs exactly as the Standard Webhooks reference library does", async () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({
      success: true,
      message: "Vidéo ✓",
      task_id: "t",
      video_url: "https://x/y",
    });
    const headers = await signWebhook("msg_1", 1_767_225_600, body, [secret]);
    expect(headers["webhook-signature"]).toBe(
      new Webhook(secret).sign("msg_1", new Date(1_767_225_600_000), body),
    );
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": "msg_1",
      "webhook-timestamp": "1767225600",
    });
  });

  it("joins one signature per secret with spaces", async () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = await signWebhook("msg_2", 1_767_225_600, "{}", [a, b]);
    const parts = headers["webhook-signature"].split(" ");
    expect(parts).toHaveLength(2);
    expect(parts.every((part) => part.startsWith("v1,"))).toBe(true);
  });

  it("refuses a secret that is not whsec_<base64>", async () => {
    await expect(signWebhook("msg_3", 0, "{}", ["plain"])).rejects.toThrow(/whsec_/);
  });
});
