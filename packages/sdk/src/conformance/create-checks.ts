/**
 * The checks `--create` adds: one text-to-video task (one credit on `gen-3-fast`), its status read
 * until it ends, and the webhook it sends to a receiver the caller provides, checked as a receiver
 * checks it (docs/api.md#webhooks).
 */
import {
  API_PATHS,
  TASK_CREATED_MESSAGE,
  TASK_DEADLINE_MS,
  TASK_STATUS_MESSAGES,
  WEBHOOK_HEADERS,
} from "@genvideo/schema";
import { verifyWebhook } from "../webhooks.js";
import { type Check, judged, skipped } from "./check.js";
import type { Exchange } from "./exchange.js";
import {
  exactKeys,
  fieldIs,
  isObject,
  isTerminal,
  jsonContentType,
  RULES,
  statusBodyProblems,
  statusIs,
  UUID_V4,
} from "./rules.js";

/** One webhook request as the receiver got it: the raw body, and the headers. */
export interface ReceivedWebhookRequest {
  method: string;
  headers: Headers | Record<string, string>;
  body: string;
}

/**
 * Where the created task's webhook goes, and how the check sees it arrive: a receiver the caller
 * runs (`genvideo-server conformance` starts one on loopback).
 */
export interface WebhookInbox {
  /** The `callback_url` of the created task: a URL the deployment can reach. */
  url: string;
  /** The next webhook request the receiver got, or `undefined` after `timeoutMs`. */
  next(timeoutMs: number): Promise<ReceivedWebhookRequest | undefined>;
}

export interface CreateCheckSettings {
  inbox: WebhookInbox | undefined;
  /** The account's webhook secrets, to verify the signature (without, its form alone is checked). */
  webhookSecret: readonly string[] | undefined;
  /** How often the status is read while the task runs. */
  pollIntervalMs: number;
  /** How long a task may take before the check gives up on it (the deadline plus a margin). */
  taskTimeoutMs: number;
  /** How long the webhook may take to arrive once the task has ended. */
  webhookTimeoutMs: number;
}

const CREATE_PROMPT = "genvideo conformance check: a red fox running through fresh snow at dawn";
const statusPath = (id: string) => API_PATHS.taskStatus.replace("{task_id}", id);
const ORDER = ["queued", "processing", "completed"];

export function createChecks(settings: CreateCheckSettings): Check[] {
  return [
    {
      id: "create-task",
      title: "A text-to-video create (1 credit): 200 and the task id",
      rule: RULES.create,
      async run({ send, state }) {
        if (!state.keyAccepted) return skipped("the deployment refused the key given with --key");
        const body = JSON.stringify({
          prompt: CREATE_PROMPT,
          model_type: "gen-3-fast",
          ...(settings.inbox ? { callback_url: settings.inbox.url } : {}),
        });
        const exchange = await send("POST", API_PATHS.createTask, "key", {
          headers: { "content-type": "application/json" },
          body,
        });
        const json = exchange.json;
        const problems = [...statusIs(exchange, 200), ...jsonContentType(exchange)];
        const notes: string[] = [];
        if (exchange.answer.status === 200) {
          problems.push(
            ...exactKeys(json, ["success", "message", "task_id"]),
            ...fieldIs(json, "success", true),
            ...fieldIs(json, "message", TASK_CREATED_MESSAGE),
          );
          if (isObject(json) && typeof json.task_id === "string" && UUID_V4.test(json.task_id))
            state.createdTask = { id: json.task_id };
          else
            problems.push(
              `task_id ${JSON.stringify(isObject(json) ? json.task_id : undefined)} is not a UUID v4`,
            );
        } else if (isObject(json) && json.code === "INVALID_CALLBACK_URL") {
          notes.push(
            `the deployment cannot send webhooks to ${settings.inbox?.url}: give --receiver-url, a public https URL that reaches the receiver this command starts`,
          );
        }
        return judged([exchange], problems, notes);
      },
    },
    {
      id: "create-status-until-end",
      title: "The created task's status, read until it ends: its shape at each read",
      rule: RULES.status,
      async run({ send, state, wait, now }) {
        const task = state.createdTask;
        if (!task) return skipped("no task was created");
        const exchanges: Exchange[] = [];
        const problems: string[] = [];
        const seen: string[] = [];
        const giveUpAt = now() + settings.taskTimeoutMs;
        for (;;) {
          const exchange = await send("GET", statusPath(task.id), "key");
          exchanges.push(exchange);
          const json = exchange.json;
          const found = [
            ...statusIs(exchange, 200),
            ...jsonContentType(exchange),
            ...statusBodyProblems(json, task.id),
          ];
          const status = isObject(json) ? String(json.status) : "?";
          problems.push(...found.map((problem) => `while ${status}: ${problem}`));
          if (seen.at(-1) !== status) seen.push(status);
          const last = seen.at(-2);
          if (last && ORDER.includes(status) && ORDER.indexOf(status) < ORDER.indexOf(last))
            problems.push(`went from ${last} back to ${status}`);
          if (found.length > 0 || isTerminal(status)) {
            if (isObject(json)) task.finalStatus = json;
            break;
          }
          if (now() >= giveUpAt) {
            problems.push(
              `not ended ${Math.round(settings.taskTimeoutMs / 1000)} s after it was created (the deadline is ${TASK_DEADLINE_MS / 60_000} minutes)`,
            );
            break;
          }
          await wait(settings.pollIntervalMs);
        }
        const final = task.finalStatus;
        if (final?.status === "completed" && problems.length === 0)
          state.completedTask = { id: task.id, videoUrl: final.video_url as string };
        else if (final?.status === "failed" && problems.length === 0)
          problems.push(`a text task with a plain prompt failed: ${String(final.message)}`);
        // Every read is kept in the report when something is wrong; the first and the last otherwise.
        const shown = problems.length ? exchanges : [exchanges[0]!, ...exchanges.slice(1).slice(-1)];
        return judged(shown, problems, [`statuses seen: ${seen.join(" → ")} in ${exchanges.length} reads`]);
      },
    },
    {
      id: "webhook-delivery",
      title: "The created task's webhook: signed, its payload the task's outcome",
      rule: RULES.webhooks,
      async run({ state, now }) {
        const task = state.createdTask;
        if (!settings.inbox) return skipped("no receiver for webhooks");
        if (!task?.finalStatus || !isTerminal(task.finalStatus.status))
          return skipped("the created task did not end");
        const received = await settings.inbox.next(settings.webhookTimeoutMs);
        if (!received)
          return judged(
            [],
            [
              `no webhook arrived at ${settings.inbox.url} within ${Math.round(settings.webhookTimeoutMs / 1000)} s of the task's end`,
            ],
          );
        return judged(
          [],
          await webhookProblems(received, task.id, task.finalStatus, settings.webhookSecret, now()),
        );
      },
    },
  ];
}

function header(headers: ReceivedWebhookRequest["headers"], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return entry?.[1];
}

const SIGNATURE = /^v1,[A-Za-z0-9+/]+={0,2}$/;
/** How far a webhook's timestamp may be from the receiver's clock (what verifiers accept: 5 minutes). */
const TIMESTAMP_TOLERANCE_S = 300;

async function webhookProblems(
  received: ReceivedWebhookRequest,
  taskId: string,
  status: Record<string, unknown>,
  secrets: readonly string[] | undefined,
  nowMs: number,
): Promise<string[]> {
  const problems: string[] = [];
  if (received.method !== "POST") problems.push(`sent with ${received.method}, expected POST`);
  const type = header(received.headers, "content-type");
  if (!type || !/^application\/json\b/i.test(type))
    problems.push(`Content-Type ${type ?? "missing"}, expected application/json`);
  const id = header(received.headers, WEBHOOK_HEADERS.id);
  const timestamp = header(received.headers, WEBHOOK_HEADERS.timestamp);
  const signature = header(received.headers, WEBHOOK_HEADERS.signature);
  if (!id) problems.push(`${WEBHOOK_HEADERS.id} missing`);
  if (!timestamp) problems.push(`${WEBHOOK_HEADERS.timestamp} missing`);
  else if (!/^\d+$/.test(timestamp) || Math.abs(Number(timestamp) - nowMs / 1000) > TIMESTAMP_TOLERANCE_S)
    problems.push(`${WEBHOOK_HEADERS.timestamp} "${timestamp}" is not the unix seconds of the attempt`);
  if (!signature) problems.push(`${WEBHOOK_HEADERS.signature} missing: the webhook is not signed`);
  else if (!signature.split(" ").every((part) => SIGNATURE.test(part)))
    problems.push(`${WEBHOOK_HEADERS.signature} "${signature}" is not "v1,<base64>" (space-separated)`);
  if (signature && id && timestamp && secrets?.length) {
    try {
      await verifyWebhook(received.body, received.headers, [...secrets], { now: nowMs });
    } catch (error) {
      problems.push(
        `the signature does not verify with the webhook secret given: ${(error as Error).message}`,
      );
    }
  }

  let payload: unknown;
  try {
    payload = JSON.parse(received.body);
  } catch {
    return [...problems, "the body is not JSON"];
  }
  if (isObject(payload)) {
    const keys = Object.keys(payload);
    const expected = ["success", "message", "task_id", "video_url"];
    if (keys.join() !== expected.join())
      problems.push(`fields ${keys.join(", ")}, expected ${expected.join(", ")} in this order`);
  } else return [...problems, "the body is not a JSON object"];
  problems.push(...fieldIs(payload, "task_id", taskId));
  const completed = status.status === "completed";
  problems.push(...fieldIs(payload, "success", completed));
  problems.push(...fieldIs(payload, "message", completed ? TASK_STATUS_MESSAGES.completed : status.message));
  if (completed) {
    if (typeof payload.video_url !== "string" || !URL.canParse(payload.video_url))
      problems.push(
        `video_url ${JSON.stringify(payload.video_url)} on a completed task, expected the download URL`,
      );
  } else problems.push(...fieldIs(payload, "video_url", null));
  return problems;
}
