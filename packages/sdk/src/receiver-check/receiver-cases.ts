import {
  encodeBase64,
  signWebhook,
  TASK_STATUS_MESSAGES,
  WEBHOOK_HEADERS,
  webhookBody,
} from "@genvideo/schema";
import type { WebhookPayload } from "../responses.js";

/** Where each rule is written down, for the report's links. */
export const WEBHOOKS_GUIDE = "https://github.com/genvideo/genvideo/blob/main/docs/webhooks.md";

/** The header that marks every delivery of the check, valued with the case's id. */
export const WEBHOOK_CHECK_HEADER = "genvideo-webhook-check";

/** A task id no task has (the check's default): v4 in form, so format checks accept it. */
export const UNKNOWN_TASK_ID = "00000000-0000-4000-8000-000000000000";

const tenMinutesMs = 10 * 60 * 1000;

/** One request of the battery and what a correct receiver answers. */
export interface ReceiverCase {
  id: string;
  title: string;
  expect: "accept" | "refuse";
  /**
   * The grade of a refusal where a 2xx was expected; default `fail`. `warn` for what works today and
   * breaks later (a receiver on a rotated-out secret, which still signs until the overlap ends).
   */
  refusedGrade?: "warn";
  /** Why a receiver that answers otherwise is in trouble. */
  why: string;
  docs: string;
  request(context: CaseContext): Promise<{ headers: Record<string, string>; body: string }>;
}

interface CaseContext {
  /** The secrets the service signs with now, newest first (more than one during a rotation). */
  secrets: readonly string[];
  taskId: string;
  /** Milliseconds since the epoch when this case is sent, for its signature's timestamp. */
  now: number;
  /** When the check started: payloads are built from it, so a repeat's body is the first's, byte for byte. */
  startedAt: number;
  /** The `webhook-id` of the first valid delivery, which the repeat sends again. */
  firstDeliveryId: string;
}

function payloads(taskId: string, now: number) {
  const expires = Math.floor(now / 1000) + 7 * 24 * 60 * 60;
  const completed: WebhookPayload = {
    success: true,
    message: TASK_STATUS_MESSAGES.completed,
    task_id: taskId,
    video_url: `https://genvideo.invalid/videos/${taskId}.mp4?expires=${expires}&signature=webhook-check`,
  };
  return {
    completed,
    unsafe: { success: false, message: "UNSAFE_CONTENT", task_id: taskId, video_url: null },
    timeout: { success: false, message: "TIMEOUT", task_id: taskId, video_url: null },
  } satisfies Record<string, WebhookPayload>;
}

/** A secret the receiver cannot know, made fresh for each check. */
function strangerSecret(): string {
  return `whsec_${encodeBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}

async function signed(
  context: CaseContext,
  body: string,
  sign: { id?: string; timestamp?: number; secret?: string | readonly string[] } = {},
) {
  const headers = await signWebhook({
    payload: body,
    // As the service signs: one signature per live secret.
    secret: sign.secret ?? context.secrets,
    ...(sign.id !== undefined ? { id: sign.id } : {}),
    timestamp: sign.timestamp ?? context.now,
  });
  return { headers: { ...headers } as Record<string, string>, body };
}

function valid(
  id: string,
  title: string,
  body: (context: CaseContext) => string,
  docs = "#verify-with-the-sdk",
): ReceiverCase {
  return {
    id,
    title,
    expect: "accept",
    why: "the service sends exactly this; any answer but a 2xx is retried 5 times and then the event is lost",
    docs,
    request: (context) => signed(context, body(context)),
  };
}

function forged(
  id: string,
  title: string,
  why: string,
  docs: string,
  request: ReceiverCase["request"],
): ReceiverCase {
  return { id, title, expect: "refuse", why, docs, request };
}

function withoutHeader(name: string): ReceiverCase {
  return forged(
    `missing-${name}`,
    `No ${name} header`,
    "an unsigned request must be refused, or anyone who learns the URL can post results",
    "#verify-with-the-sdk",
    async (context) => {
      const { headers, body } = await signed(context, completedBody(context));
      delete headers[name];
      return { headers, body };
    },
  );
}

const completedBody = (context: CaseContext) =>
  webhookBody(payloads(context.taskId, context.startedAt).completed);

/** The id of the case sent only during a rotation: a delivery signed with the newest secret alone. */
export const NEWEST_SECRET_CASE = "newest-secret-alone";

const newestSecretAlone: ReceiverCase = {
  id: NEWEST_SECRET_CASE,
  title: "A valid delivery signed with the newest secret alone, as once the rotation's overlap ends",
  expect: "accept",
  refusedGrade: "warn",
  why: "deliveries carry the older secret's signature only until the rotation's overlap ends; a receiver that knows only the older secret then refuses every one: give it the newest secret before then",
  docs: "#rotating-the-secret-checking-the-task",
  request: (context) => signed(context, completedBody(context), { secret: context.secrets.slice(0, 1) }),
};

/** The battery for `secretCount` live secrets: during a rotation, one more case tells which one the receiver is on. */
export function receiverCases(secretCount: number): readonly ReceiverCase[] {
  return secretCount > 1 ? [...RECEIVER_CASES, newestSecretAlone] : RECEIVER_CASES;
}

/**
 * The battery, in the order it is sent. The first case's `webhook-id` is reused by `repeat`, as a
 * retry after a lost 2xx would; every other case has an id of its own.
 */
const RECEIVER_CASES: readonly ReceiverCase[] = [
  {
    ...valid("completed", "A valid delivery of a completed task", completedBody),
    request: (context) => signed(context, completedBody(context), { id: context.firstDeliveryId }),
  },
  valid("failed-unsafe-content", "A valid delivery of a task failed with UNSAFE_CONTENT", (context) =>
    webhookBody(payloads(context.taskId, context.startedAt).unsafe),
  ),
  valid("failed-timeout", "A valid delivery of a task that timed out (TIMEOUT)", (context) =>
    webhookBody(payloads(context.taskId, context.startedAt).timeout),
  ),
  {
    id: "repeat",
    title: "The first delivery again, same webhook-id, as a retry",
    expect: "accept",
    why: "a retry arrives whenever your 2xx is lost on the way back: acknowledge it (and do the work once), or the service retries it until it gives up",
    docs: "#answer-fast-work-later",
    request: (context) => signed(context, completedBody(context), { id: context.firstDeliveryId }),
  },
  valid(
    "raw-body",
    "A valid delivery whose JSON is laid out differently (same value, other bytes)",
    (context) => `${JSON.stringify(payloads(context.taskId, context.startedAt).completed, null, 2)}\n`,
  ),
  valid(
    "unknown-field",
    "A valid delivery with a field the service does not send yet",
    (context) => JSON.stringify({ ...payloads(context.taskId, context.startedAt).completed, duration_s: 5 }),
    "#what-you-receive",
  ),
  valid(
    "unknown-failure-code",
    "A valid delivery with a failure code the service does not send yet",
    (context) =>
      JSON.stringify({ ...payloads(context.taskId, context.startedAt).unsafe, message: "MODEL_UNAVAILABLE" }),
    "#what-you-receive",
  ),
  {
    id: "rotation-overlap",
    title: "Two signatures, one by another secret and one valid (a secret rotation's overlap)",
    expect: "accept",
    why: "while the secret is rotated every delivery carries one signature per live secret; any one matching is enough",
    docs: "#rotating-the-secret-checking-the-task",
    async request(context) {
      const body = completedBody(context);
      const id = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
      const other = await signWebhook({
        payload: body,
        secret: strangerSecret(),
        id,
        timestamp: context.now,
      });
      const own = await signWebhook({ payload: body, secret: context.secrets, id, timestamp: context.now });
      const signature = `${other[WEBHOOK_HEADERS.signature]} ${own[WEBHOOK_HEADERS.signature]}`;
      return { headers: { ...own, [WEBHOOK_HEADERS.signature]: signature }, body };
    },
  },
  forged(
    "body-changed",
    "The body changed after signing",
    "whoever can reach your endpoint could post any result (another video URL, a failure) as the service",
    "#verify-with-the-sdk",
    async (context) => {
      const { headers, body } = await signed(context, completedBody(context));
      return { headers, body: body.replace("https://genvideo.invalid/", "https://attacker.invalid/") };
    },
  ),
  forged(
    "wrong-secret",
    "Signed with another secret",
    "a signature is only proof when it is checked against your secret",
    "#verify-with-the-sdk",
    (context) => signed(context, completedBody(context), { secret: strangerSecret() }),
  ),
  withoutHeader(WEBHOOK_HEADERS.id),
  withoutHeader(WEBHOOK_HEADERS.timestamp),
  withoutHeader(WEBHOOK_HEADERS.signature),
  forged(
    "timestamp-old",
    "Validly signed ten minutes ago",
    "a request captured once could be replayed for ever: refuse timestamps more than 5 minutes away",
    "#verify-without-the-sdk",
    (context) => signed(context, completedBody(context), { timestamp: context.now - tenMinutesMs }),
  ),
  forged(
    "timestamp-ahead",
    "Validly signed ten minutes ahead",
    "a timestamp in the future lets a captured request be replayed later: refuse both directions",
    "#verify-without-the-sdk",
    (context) => signed(context, completedBody(context), { timestamp: context.now + tenMinutesMs }),
  ),
];
