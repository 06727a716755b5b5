/**
 * What the API reference says about the `taskFinished` webhook, in Markdown: the payload, the three
 * headers, verifying with `verifyWebhook` and by hand, the retry schedule and what to answer. The
 * figures come from the limits the service applies, so the page cannot state other ones.
 */
import { FAILURE_CODES, TASK_STATUS_MESSAGES } from "./catalog.js";
import { WEBHOOK_HEADERS } from "./http.js";
import {
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  WEBHOOK_CONNECT_TIMEOUT_MS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RESPONSE_MAX_BYTES,
  WEBHOOK_RETRY_SPACING_MS,
} from "./limits.js";
import { CompletedWebhookPayloadSchema } from "./webhook.js";

const seconds = (ms: number) => `${ms / 1000} s`;
const codeList = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(", ");
const { id, timestamp, signature } = WEBHOOK_HEADERS;

/** The retry schedule in words: each attempt after the first waits for the one before it to fail. */
function retrySchedule(): string {
  return Array.from({ length: WEBHOOK_MAX_ATTEMPTS }, (_, index) =>
    index === 0
      ? "1. at once, when the task ends;"
      : `${index + 1}. ${seconds(WEBHOOK_RETRY_SPACING_MS)} after attempt ${index} failed${index + 1 === WEBHOOK_MAX_ATTEMPTS ? "." : ";"}`,
  ).join("\n");
}

// The samples' import lines, kept off the start of a source line: they are text, not imports of this module.
const importLines = (...lines: string[]) => lines.join("\n");

const VERIFY_WITH_SDK = `\`\`\`ts
${importLines('import { Hono } from "hono";', 'import { verifyWebhook, WebhookVerificationError } from "@genvideo/sdk";')}

const app = new Hono();
const seen = new Set<string>(); // in production: a unique column of your database

app.post("/webhooks/genvideo", async (c) => {
  try {
    // The Request itself: verifyWebhook reads the raw body (never verify re-serialised JSON).
    const payload = await verifyWebhook(c.req.raw, process.env.GENVIDEO_WEBHOOK_SECRET!);
    const eventId = c.req.header("${id}")!;
    if (!seen.has(eventId)) {
      seen.add(eventId);
      queueMicrotask(() => handleResult(payload)); // the work after the answer
    }
    return c.body(null, 204);
  } catch (error) {
    if (WebhookVerificationError.isInstance(error)) return c.text(error.reason, 400);
    throw error;
  }
});
\`\`\``;

const VERIFY_BY_HAND = `\`\`\`ts
${importLines('import { createHmac, timingSafeEqual } from "node:crypto";')}

/** body: the raw request body; headers: lower-case names, as Node gives them. */
export function verifyGenvideoWebhook(body: Buffer, headers: Record<string, string | undefined>, secret: string) {
  const id = headers["${id}"], timestamp = headers["${timestamp}"], signatures = headers["${signature}"];
  if (!id || !timestamp || !signatures) throw new Error("missing webhook headers");
  if (!/^\\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) throw new Error("stale timestamp");
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(\`\${id}.\${timestamp}.\`).update(body).digest();
  const ok = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",");
    const received = Buffer.from(value ?? "", "base64");
    return version === "v1" && received.length === expected.length && timingSafeEqual(received, expected);
  });
  if (!ok) throw new Error("no signature matches");
  return JSON.parse(body.toString("utf8"));
}
\`\`\``;

/** The Markdown description of the `taskFinished` webhook. */
export function webhookGuide(): string {
  return `Sent to the task's \`callback_url\` when the task ends: completed, failed or timed out. One POST per task, \`Content-Type: application/json\`, signed per [Standard Webhooks](https://www.standardwebhooks.com/).

### Payload

The fields, in this order: ${codeList(Object.keys(CompletedWebhookPayloadSchema.shape))}. Completed: \`success: true\`, \`message: "${TASK_STATUS_MESSAGES.completed}"\` and the signed \`video_url\`. Failed: \`success: false\`, \`message\` is the failure code (${codeList(FAILURE_CODES)}), \`video_url: null\`. Ignore fields you do not know, and treat an unknown code as a failure.

### The three headers

| Header | Value |
| --- | --- |
| \`${id}\` | The event's id, **the same on every retry** of the event and on a redelivery: drop repeats by it. |
| \`${timestamp}\` | Unix seconds when this attempt was signed, new on each attempt. Refuse values more than 5 minutes from your clock. |
| \`${signature}\` | \`v1,<base64 HMAC-SHA256>\` of \`<${id}>.<${timestamp}>.<raw body>\`, keyed with the account's \`whsec_\` secret (base64-decoded). Several, space-separated, during a secret rotation: one match is enough. |

### Verify with \`verifyWebhook\`

\`verifyWebhook\` of \`@genvideo/sdk\` checks the three headers, the timestamp and the signature in constant time, and returns the typed payload; it throws \`WebhookVerificationError\` otherwise.

${VERIFY_WITH_SDK}

### Verify by hand

Any Standard Webhooks library works (\`standardwebhooks\` on npm). Without one: refuse a missing header or a timestamp over 5 minutes away, compute the HMAC over the raw bytes, compare each \`v1\` signature in constant time, and only then parse the JSON.

${VERIFY_BY_HAND}

### Retry schedule

Up to ${WEBHOOK_MAX_ATTEMPTS} attempts, until one gets a 2xx:

${retrySchedule()}

Each attempt must connect within ${seconds(WEBHOOK_CONNECT_TIMEOUT_MS)} and end within ${seconds(WEBHOOK_ATTEMPT_TIMEOUT_MS)}. After the last failure the delivery is \`failed\`; \`redeliverWebhook\` sends the event again with the same \`${id}\`, and \`listWebhookEvents\` shows every attempt.

### What to answer

- **Any 2xx, at once**, as soon as the signature checks out; do the heavy work (downloading the video, notifying users) after answering. An answer later than ${seconds(WEBHOOK_ATTEMPT_TIMEOUT_MS)} fails the attempt.
- **A 2xx for a repeat** of a \`${id}\` you handled: delivery is at least once.
- **A 4xx for a forgery** (a bad signature or timestamp): do nothing else.
- No redirects: a 3xx is a failure, they are not followed. Keep the body empty (at most ${WEBHOOK_RESPONSE_MAX_BYTES / 1024} KiB is read).`;
}
