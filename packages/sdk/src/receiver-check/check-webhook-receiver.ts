import { WEBHOOK_ATTEMPT_TIMEOUT_MS } from "@genvideo/schema";
import {
  type DeliveryChannel,
  deliver,
  type WebhookCheckAnswer,
  type WebhookReceiverTarget,
} from "./deliver.js";
import { gradeAnswer, type WebhookCheckGrade } from "./grade.js";
import {
  NEWEST_SECRET_CASE,
  type ReceiverCase,
  receiverCases,
  UNKNOWN_TASK_ID,
  WEBHOOK_CHECK_HEADER,
  WEBHOOKS_GUIDE,
} from "./receiver-cases.js";

/** Past this, an answer is graded `warn`: the service wants a quick 2xx and the heavy work after. */
export const SLOW_ANSWER_MS = 1000;

/**
 * Settings of `checkWebhookReceiver`.
 *
 * @example
 * ```ts
 * await checkWebhookReceiver(app.fetch, { secret, url: "http://localhost/hooks/genvideo", taskId });
 * ```
 */
export interface CheckWebhookReceiverOptions {
  /**
   * The secret the service signs with, `whsec_<base64>`. During a rotation's overlap the service
   * signs with every live secret: pass them all, newest first, and the check signs as the service
   * does, then also sends one delivery signed with the newest alone, to tell which secret the
   * receiver verifies with.
   */
  secret: string | readonly string[];
  /**
   * A task the receiver knows; every payload carries its id. Default: an id no task has, which a
   * receiver that refuses unknown task ids refuses (the report then says so).
   */
  taskId?: string;
  /** The URL of the requests handed to a handler target (its path is what the handler routes on). Default `http://localhost/`. */
  url?: string;
  /** Sends the requests to a URL target. Default: the global `fetch`. Redirects must not be followed. */
  fetch?: (request: Request) => Promise<Response>;
  /** Milliseconds of a monotonic clock, to time answers. Default `performance.now()`. */
  clock?: () => number;
  /** The current time in milliseconds since the epoch, for signatures. Default `Date.now()`. */
  now?: () => number;
}

/**
 * One line of the report.
 *
 * @example
 * ```ts
 * const failed: WebhookCheckCase[] = report.cases.filter((entry) => entry.grade === "fail");
 * ```
 */
export interface WebhookCheckCase {
  /** A stable name (`body-changed`), also sent as the value of the `genvideo-webhook-check` header. */
  id: string;
  title: string;
  /** What a correct receiver answers: `2xx` or `4xx`. */
  expected: "2xx" | "4xx";
  grade: WebhookCheckGrade;
  /** What happened: the status and time, or why that is wrong. */
  detail: string;
  /** Why it matters in production. */
  why: string;
  /** The section of docs/webhooks.md with the rule. */
  docs: string;
  /** The receiver's answer; absent for the answer-time summary and skipped cases. */
  answer?: WebhookCheckAnswer;
}

/**
 * The graded answers of a receiver: `ok` when nothing failed (warnings allowed).
 *
 * @example
 * ```ts
 * const report: WebhookReceiverReport = await checkWebhookReceiver(url, { secret });
 * if (!report.ok) console.error(formatWebhookCheckReport(report));
 * ```
 */
export interface WebhookReceiverReport {
  ok: boolean;
  /** How many secrets signed each valid delivery (more than one during a rotation's overlap). */
  secrets: number;
  /**
   * During a rotation (more than one secret): `newest` when the receiver verified a delivery signed
   * with the newest secret alone, `older` when it refused it but verified the service's deliveries,
   * which carry the older secrets' signatures too, and undefined otherwise (the battery says more).
   */
  receiverSecret?: "newest" | "older";
  /** The URL checked, or `handler <url>`. */
  target: string;
  /** The task id every payload carried. */
  taskId: string;
  counts: Record<WebhookCheckGrade, number>;
  cases: WebhookCheckCase[];
  /** What to know to read the report (an unknown task id, say). */
  notes: string[];
}

/**
 * Sends a battery of deliveries to a webhook receiver, signed as the service signs them, and grades
 * each answer: valid deliveries, a retry, rotation signatures and payloads with new fields must get
 * a 2xx; forged, unsigned and stale ones a 4xx; nothing may redirect, and answers should come within
 * 1 s (30 s ends an attempt). Every request carries a `genvideo-webhook-check` header. No server is
 * needed for a handler target.
 *
 * @example
 * ```ts
 * import { checkWebhookReceiver, formatWebhookCheckReport } from "@genvideo/sdk/receiver-check";
 * // app: your Hono app, with POST /hooks/genvideo
 *
 * it("handles genvideo webhooks as the contract asks", async () => {
 *   const report = await checkWebhookReceiver(app.fetch, {
 *     secret: process.env.GENVIDEO_WEBHOOK_SECRET!,
 *     url: "http://localhost/hooks/genvideo",
 *   });
 *   expect(report.ok, formatWebhookCheckReport(report)).toBe(true);
 * });
 * ```
 */
export async function checkWebhookReceiver(
  target: WebhookReceiverTarget,
  options: CheckWebhookReceiverOptions,
): Promise<WebhookReceiverReport> {
  const { taskId = UNKNOWN_TASK_ID, now = Date.now } = options;
  const secrets = typeof options.secret === "string" ? [options.secret] : [...options.secret];
  const handlerUrl = options.url ?? "http://localhost/";
  const channel: DeliveryChannel = {
    target,
    handlerUrl,
    fetch: options.fetch ?? ((request) => fetch(request)),
    clock: options.clock ?? (() => performance.now()),
  };
  const startedAt = now();
  const firstDeliveryId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const cases: WebhookCheckCase[] = [];
  const answers: WebhookCheckAnswer[] = [];
  for (const testCase of receiverCases(secrets.length)) {
    const stopped = answers.find((answer) => unreachable(target, answer));
    if (stopped) {
      const why =
        stopped.error === "timeout"
          ? "did not answer within 30 s"
          : `could not be reached (${stopped.error})`;
      cases.push(line(testCase, "skip", `not sent: the receiver ${why}`));
      continue;
    }
    const request = await testCase.request({ secrets, taskId, now: now(), startedAt, firstDeliveryId });
    const answer = await deliver(channel, {
      headers: {
        ...request.headers,
        "user-agent": "genvideo-webhooks/1",
        [WEBHOOK_CHECK_HEADER]: testCase.id,
      },
      body: request.body,
    });
    answers.push(answer);
    const verdict = gradeAnswer(testCase, answer);
    cases.push({ ...line(testCase, verdict.grade, verdict.detail), answer });
  }
  cases.push(answerTime(answers));

  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const entry of cases) counts[entry.grade]++;
  const onSecret = receiverSecretOf(cases);
  return {
    ok: counts.fail === 0,
    target: typeof target === "function" ? `handler ${handlerUrl}` : String(target),
    taskId,
    secrets: secrets.length,
    ...(onSecret ? { receiverSecret: onSecret } : {}),
    counts,
    cases,
    notes: notesOf(options.taskId, cases, onSecret),
  };
}

/** Which secret the receiver is on, read from the deliveries signed by all and by the newest alone. */
function receiverSecretOf(cases: readonly WebhookCheckCase[]): WebhookReceiverReport["receiverSecret"] {
  const newestAlone = cases.find((entry) => entry.id === NEWEST_SECRET_CASE);
  const signedByAll = cases.find((entry) => entry.id === "completed");
  if (!newestAlone?.answer || !signedByAll?.answer) return undefined;
  if (newestAlone.grade === "pass") return "newest";
  return signedByAll.grade === "pass" ? "older" : undefined;
}

function line(testCase: ReceiverCase, grade: WebhookCheckGrade, detail: string): WebhookCheckCase {
  return {
    id: testCase.id,
    title: testCase.title,
    expected: testCase.expect === "accept" ? "2xx" : "4xx",
    grade,
    detail,
    why: testCase.why,
    docs: `${WEBHOOKS_GUIDE}${testCase.docs}`,
  };
}

/**
 * No point sending more: the receiver timed out (each further case would wait 30 s), or a URL could
 * not be reached at all. A handler that throws is only a failed case: it may answer the next one.
 */
function unreachable(target: WebhookReceiverTarget, answer: WebhookCheckAnswer): boolean {
  return answer.status === null && (answer.error === "timeout" || typeof target !== "function");
}

function answerTime(answers: readonly WebhookCheckAnswer[]): WebhookCheckCase {
  const answered = answers.filter((answer) => answer.status !== null);
  const slowest = Math.max(0, ...answered.map((answer) => answer.durationMs));
  const timedOut = answers.some((answer) => answer.error === "timeout");
  const grade = timedOut || answered.length === 0 ? "fail" : slowest > SLOW_ANSWER_MS ? "warn" : "pass";
  return {
    id: "answer-time",
    title: "Answer time",
    expected: "2xx",
    grade,
    detail: timedOut
      ? `no answer within ${WEBHOOK_ATTEMPT_TIMEOUT_MS / 1000} s: the attempt fails and is retried`
      : answered.length === 0
        ? "no answer at all"
        : `slowest answer ${slowest} ms${grade === "warn" ? `, over ${SLOW_ANSWER_MS} ms` : ""}`,
    why: "an attempt ends after 30 s and is retried; answer within 1 s and do the heavy work after",
    docs: `${WEBHOOKS_GUIDE}#answer-fast-work-later`,
  };
}

function notesOf(
  givenTaskId: string | undefined,
  cases: readonly WebhookCheckCase[],
  receiverSecret: WebhookReceiverReport["receiverSecret"],
): string[] {
  const notes: string[] = [];
  if (receiverSecret === "older") {
    notes.push(
      "The receiver verifies with an older secret only: the service's deliveries verify while the rotation's overlap lasts, and are refused once it ends. Give the receiver the newest secret before then.",
    );
  }
  if (givenTaskId !== undefined) return notes;
  const refusedValid = cases.some(
    (entry) =>
      entry.expected === "2xx" &&
      entry.id !== NEWEST_SECRET_CASE &&
      entry.answer?.status !== undefined &&
      (entry.answer.status ?? 0) >= 400,
  );
  notes.push(
    `Every payload carried task id ${UNKNOWN_TASK_ID}, which no task has: a receiver that refuses task ids it does not know refuses these${
      refusedValid ? " (as this one may have)" : ""
    }. Check again with a real task's id (the taskId option, --task on the command line, or the dashboard's Task id field).`,
  );
  return notes;
}
