/**
 * The contract's rules as small judgements on one answer: each returns the problems it finds, in
 * words a person acts on. Every rule is docs/api.md's; `RULES` links each check to its section.
 */
import {
  FAILURE_CODES,
  HTTP_REASON_PHRASES,
  RATE_LIMIT_HEADERS,
  REQUEST_ID_HEADER,
  VIDEO_REASON_PHRASES,
} from "@genvideo/schema";
import type { Exchange } from "./exchange.js";

const API_DOCS = "https://github.com/genvideo/genvideo/blob/main/docs/api.md";

type Rule =
  | "authentication"
  | "account"
  | "validation"
  | "errors"
  | "endpoints"
  | "create"
  | "status"
  | "video"
  | "headers"
  | "rateLimits"
  | "webhooks";

/** The section of docs/api.md that states each rule a check applies. */
export const RULES: Record<Rule, string> = {
  authentication: `${API_DOCS}#authentication`,
  account: `${API_DOCS}#account`,
  validation: `${API_DOCS}#validation-errors`,
  errors: `${API_DOCS}#errors`,
  endpoints: `${API_DOCS}#endpoints`,
  create: `${API_DOCS}#response`,
  status: `${API_DOCS}#task-status`,
  video: `${API_DOCS}#video-download`,
  headers: `${API_DOCS}#response-headers`,
  rateLimits: `${API_DOCS}#rate-limits`,
  webhooks: `${API_DOCS}#webhooks`,
};

export const UUID_V4: RegExp = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** `req_<uuid>`, or the caller's own id when it is 1 to 128 of `A-Z a-z 0-9 . _ : -`. */
export const REQUEST_ID: RegExp = /^[A-Za-z0-9._:-]{1,128}$/;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function statusIs(exchange: Exchange, expected: number): string[] {
  const { status } = exchange.answer;
  return status === expected ? [] : [`status ${status}, expected ${expected}`];
}

export function jsonContentType(exchange: Exchange): string[] {
  const type = exchange.answer.headers["content-type"];
  return type && /^application\/json\b/i.test(type)
    ? []
    : [`Content-Type ${type === undefined ? "missing" : `"${type}"`}, expected application/json`];
}

/** The body's keys are exactly these (in any order). */
export function exactKeys(body: unknown, keys: readonly string[]): string[] {
  if (!isObject(body)) return ["the body is not a JSON object"];
  const present = Object.keys(body);
  const missing = keys.filter((key) => !present.includes(key));
  const extra = present.filter((key) => !keys.includes(key));
  return [
    ...(missing.length ? [`missing field ${missing.map((key) => `"${key}"`).join(", ")}`] : []),
    ...(extra.length ? [`unexpected field ${extra.map((key) => `"${key}"`).join(", ")}`] : []),
  ];
}

export function fieldIs(body: unknown, field: string, expected: unknown): string[] {
  if (!isObject(body)) return [];
  const actual = body[field];
  return actual === expected
    ? []
    : [`${field} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];
}

/** A 401 as docs/api.md#authentication fixes it: exactly `{ error, message }` and the challenge header. */
export function authFailure(exchange: Exchange, message: string): string[] {
  return [
    ...statusIs(exchange, 401),
    ...jsonContentType(exchange),
    ...exactKeys(exchange.json, ["error", "message"]),
    ...fieldIs(exchange.json, "error", "Unauthorized"),
    ...fieldIs(exchange.json, "message", message),
    ...headerIs(exchange, "www-authenticate", 'Bearer realm="genvideo"'),
    ...noRateLimitHeaders(exchange),
  ];
}

const REASON_PHRASES: Record<number, string> = { ...HTTP_REASON_PHRASES, ...VIDEO_REASON_PHRASES };

/** The usual error body: `{ error: <reason phrase>, code, message }` (+ `success: false` on create). */
export function errorBody(
  exchange: Exchange,
  status: number,
  code: string,
  extra: { create?: boolean; issues?: boolean } = {},
): string[] {
  const keys = [
    "error",
    "code",
    "message",
    ...(extra.create ? ["success"] : []),
    ...(extra.issues ? ["issues"] : []),
  ];
  const body = exchange.json;
  return [
    ...statusIs(exchange, status),
    ...jsonContentType(exchange),
    ...exactKeys(body, keys),
    ...fieldIs(body, "error", REASON_PHRASES[status]),
    ...fieldIs(body, "code", code),
    ...(isObject(body) && (typeof body.message !== "string" || body.message === "")
      ? ["message is not a non-empty string"]
      : []),
    ...(extra.create ? fieldIs(body, "success", false) : []),
  ];
}

export function headerIs(exchange: Exchange, name: string, expected: string): string[] {
  const actual = exchange.answer.headers[name];
  return actual === expected
    ? []
    : [`${name} ${actual === undefined ? "missing" : `is "${actual}"`}, expected "${expected}"`];
}

/** An answer given before the key is checked carries no rate-limit headers (docs/api.md#rate-limits). */
export function noRateLimitHeaders(exchange: Exchange): string[] {
  return [RATE_LIMIT_HEADERS.policy, RATE_LIMIT_HEADERS.limit]
    .filter((name) => exchange.answer.headers[name.toLowerCase()] !== undefined)
    .map((name) => `${name} on an answer given before the key is checked`);
}

export function requestIdProblems(exchange: Exchange): string[] {
  const id = exchange.answer.headers[REQUEST_ID_HEADER.toLowerCase()];
  if (id === undefined) return [`${REQUEST_ID_HEADER} missing`];
  return REQUEST_ID.test(id) ? [] : [`${REQUEST_ID_HEADER} "${id}" is not a request id`];
}

const ISSUE_SUFFIX = /^ \(and (\d+) more issues?\)$/;

/** `issues` with `path` and `message`, and `message` the first issue's plus how many more. */
export function issuesProblems(body: unknown, expectedPaths: readonly string[]): string[] {
  if (!isObject(body)) return [];
  const issues = body.issues;
  if (!Array.isArray(issues) || issues.length === 0) return ["issues is not a non-empty array"];
  const problems: string[] = [];
  for (const [index, issue] of issues.entries()) {
    if (!isObject(issue) || typeof issue.path !== "string" || typeof issue.message !== "string")
      problems.push(`issues.${index} is not { path, message } with two strings`);
  }
  if (problems.length) return problems;
  const paths = issues.map((issue) => (issue as { path: string }).path);
  for (const path of expectedPaths)
    if (!paths.includes(path)) problems.push(`no issue with path "${path}" (paths: ${paths.join(", ")})`);
  const first = (issues[0] as { message: string }).message;
  const message = typeof body.message === "string" ? body.message : "";
  const rest = message.startsWith(first) ? message.slice(first.length) : undefined;
  const more =
    rest === undefined ? undefined : rest === "" ? 0 : Number(ISSUE_SUFFIX.exec(rest)?.[1] ?? Number.NaN);
  if (more !== issues.length - 1)
    problems.push(
      `message does not repeat the first issue and say how many more there are (${issues.length - 1})`,
    );
  return problems;
}

/** A status answer's body, by status (docs/api.md#task-status). */
export function statusBodyProblems(body: unknown, taskId: string): string[] {
  if (!isObject(body)) return ["the body is not a JSON object"];
  const problems: string[] = [];
  if (body.task_id !== taskId)
    problems.push(`task_id is ${JSON.stringify(body.task_id)}, expected "${taskId}"`);
  if (typeof body.status !== "string") return [...problems, "status is not a string"];
  if (typeof body.message !== "string" || body.message === "")
    problems.push("message is not a non-empty string");
  const status = body.status;
  const hasUrl = Object.hasOwn(body, "video_url");
  if (status === "queued" || status === "processing") {
    if (hasUrl) problems.push(`video_url present on a ${status} task (it is absent until the task ends)`);
  } else if (status === "completed") {
    if (typeof body.video_url !== "string" || !URL.canParse(body.video_url))
      problems.push(
        `video_url is ${JSON.stringify(body.video_url)} on a completed task, expected the signed download URL`,
      );
  } else if (status === "failed") {
    if (!hasUrl || body.video_url !== null)
      problems.push(
        `video_url is ${hasUrl ? JSON.stringify(body.video_url) : "absent"} on a failed task, expected null`,
      );
    if (typeof body.message === "string" && !/^[A-Z][A-Z0-9_]*$/.test(body.message))
      problems.push(
        `message "${body.message}" is not a failure code (${FAILURE_CODES.join(", ")}, or a new one)`,
      );
  }
  if (Object.hasOwn(body, "progress")) {
    const progress = body.progress;
    if (typeof progress !== "number" || progress < 0 || progress > 100)
      problems.push(`progress ${JSON.stringify(progress)} is not 0 to 100`);
    else if (status === "completed" && progress !== 100)
      problems.push(`progress ${progress} on a completed task, expected 100`);
    else if (status === "failed" && progress !== 0)
      problems.push(`progress ${progress} on a failed task, expected 0`);
    else if (status !== "completed" && progress > 99)
      problems.push(`progress ${progress} before the task completed (at most 99)`);
  }
  for (const field of ["created_at", "updated_at"])
    if (
      Object.hasOwn(body, field) &&
      (typeof body[field] !== "string" || !ISO_UTC.test(body[field] as string))
    )
      problems.push(`${field} ${JSON.stringify(body[field])} is not an ISO 8601 UTC time`);
  return problems;
}

export function isTerminal(status: unknown): boolean {
  return status === "completed" || status === "failed";
}
