import { describe, expect, it } from "vitest";
import { taskId } from "../test/support/fetch.js";
import { signWebhook, verifyWebhook, WebhookVerificationError } from "./index.js";

// An unauthenticated sender controls the signature header and the body; what it makes a receiver
// spend must not grow with the number of entries it sends.
const secrets = [
  "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  "whsec_c2Vjb25kIHNlY3JldCBmb3Igcm90YXRpb24=",
  "whsec_dGhpcmQgc2VjcmV0IGZvciByb3RhdGlvbiEh",
  "whsec_Zm91cnRoIHNlY3JldCBmb3Igcm90YXRpb24hIQ==",
];
const megabyteBody = JSON.stringify({
  success: true,
  message: "x".repeat(1024 * 1024),
  task_id: taskId,
  video_url: "https://example.com/v.mp4",
});

/** A `v1` entry the size of a real signature (32 bytes), which matches no secret. */
const forgedFullSize = `v1,${btoa("f".repeat(32))}`;

/** The fastest of a few rejections of a forged delivery with `entries` copies of `entry`. */
async function forgedDeliveryMs(entries: number, entry = "v1,AA=="): Promise<number> {
  const headers = {
    "webhook-id": "msg_forged",
    "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
    "webhook-signature": Array.from({ length: entries }, () => entry).join(" "),
  };
  let fastest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const error = await verifyWebhook(megabyteBody, headers, secrets).catch((caught: unknown) => caught);
    fastest = Math.min(fastest, performance.now() - started);
    expect(WebhookVerificationError.isInstance(error) && error.reason).toBe("bad_signature");
  }
  return fastest;
}

/**
 * The fastest of a few verifications of a genuine delivery signed with the last secret: every
 * secret's HMAC over the body is computed once, the least work an honest delivery costs.
 */
async function genuineDeliveryMs(): Promise<number> {
  const headers = await signWebhook({ payload: megabyteBody, secret: secrets[3]! });
  let fastest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    await verifyWebhook(megabyteBody, headers, secrets);
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

// Each entry verified in full, per secret, cost about 2 000 genuine verifications (14 s against
// 7 ms). The bound sits far from both: a loaded machine moves either figure by a few times, and a
// forged entry rejected without an HMAC makes a ratio against a one-entry forgery meaningless.
const MAX_RATIO_TO_GENUINE = 25;

describe("verifyWebhook's cost under a forged signature header", () => {
  it("spends on 2 000 entries about what a genuine delivery costs, over a 1 MB body and 4 secrets", async () => {
    await genuineDeliveryMs(); // warm-up: Web Crypto and the JIT
    const genuine = await genuineDeliveryMs();
    const many = await forgedDeliveryMs(2_000);
    expect(many / genuine).toBeLessThan(MAX_RATIO_TO_GENUINE);
  });

  it("computes each secret's HMAC once, however many signatures of the right size come", async () => {
    await genuineDeliveryMs();
    const genuine = await genuineDeliveryMs();
    const many = await forgedDeliveryMs(2_000, forgedFullSize);
    expect(many / genuine).toBeLessThan(MAX_RATIO_TO_GENUINE);
  });

  it("still finds a real signature among the entries it reads", async () => {
    const signed = await signWebhook({ payload: megabyteBody, secret: secrets[3]! });
    const headers = { ...signed, "webhook-signature": `v1,AA== v1a,x ${signed["webhook-signature"]}` };
    await expect(verifyWebhook(megabyteBody, headers, secrets)).resolves.toMatchObject({ task_id: taskId });
  });
});

describe("verifyWebhook's patterns on a sender's headers", () => {
  // Fastest of three, 250 ms plus 1 ms per KiB: linear parsing takes a hundredth of it, a
  // backtracking pattern seconds at these sizes.
  const budgetMs = (size: number) => 250 + size / 1024;

  it.each([
    [
      "webhook-timestamp: digits, then a letter",
      "webhook-timestamp",
      (size: number) => `${"1".repeat(size)}x`,
      "bad_header",
    ],
    [
      "webhook-signature: one long entry",
      "webhook-signature",
      (size: number) => `v1,${"A".repeat(size)}!`,
      "bad_signature",
    ],
    [
      "webhook-signature: spaces",
      "webhook-signature",
      (size: number) => `v1,AA==${" ".repeat(size)}v1,`,
      "bad_signature",
    ],
  ])("%s is refused in linear time", async (_, name, headerOf, reason) => {
    for (const size of [1024, 64 * 1024, 1024 * 1024]) {
      const headers = {
        "webhook-id": "msg_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AA==",
        [name]: headerOf(size),
      };
      let fastest = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const error = await verifyWebhook("{}", headers, secrets).catch((caught: unknown) => caught);
        fastest = Math.min(fastest, performance.now() - started);
        expect(WebhookVerificationError.isInstance(error) && error.reason).toBe(reason);
      }
      expect(fastest, `${size} characters`).toBeLessThan(budgetMs(size));
    }
  });
});
