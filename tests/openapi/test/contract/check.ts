/**
 * The contract checker: given a request and the answer it got, the rules of docs/api.md the answer
 * breaks, each by name with a link to where the docs state it. It knows the API from the docs
 * alone (not from @genvideo/schema), so it can judge the server, the msw mock, and mocks that other
 * tools generate from the OpenAPI document.
 *
 * @example
 * const violations = checkExchange(
 *   { method: "GET", path: `/api/gen/status/${taskId}` },
 *   { status: response.status, headers: response.headers, body: await response.text() },
 * );
 */

import { checkErrorAnswer } from "./error-bodies.js";
import { CONTRACT_RULES, type ContractRuleName } from "./rules.js";
import { checkSuccessBody, checkVideoAnswer } from "./success-bodies.js";
import { isObject, isRequestId, type Json } from "./values.js";

export interface ContractRequest {
  method: string;
  /** The path, with its query. */
  path: string;
}

export interface ContractAnswer {
  status: number;
  headers: Headers | Record<string, string>;
  /** The body as text (parsed here when JSON), or already parsed. */
  body?: unknown;
}

export interface ContractViolation {
  rule: ContractRuleName;
  /** What was wrong with this answer. */
  detail: string;
  /** Where docs/api.md states the rule. */
  docs: string;
}

/** Collects violations; `check(rule, ok, detail)` records one when `ok` is false. */
export type Report = (rule: ContractRuleName, ok: boolean, detail: string) => void;

/** The routes of docs/api.md#endpoints, with the task id of the path when it has one. */
export type Route =
  | { name: "create" | "account"; taskId?: undefined }
  | { name: "status" | "webhook-events" | "redelivery" | "video"; taskId: string }
  | { name: "other"; taskId?: undefined };

const ROUTES: [methods: string[], path: RegExp, name: Route["name"]][] = [
  [["POST"], /^\/api\/gen\/generate$/, "create"],
  [["GET"], /^\/api\/gen\/account$/, "account"],
  [["GET"], /^\/api\/gen\/status\/([^/]+)$/, "status"],
  [["GET"], /^\/api\/gen\/tasks\/([^/]+)\/webhooks$/, "webhook-events"],
  [["POST"], /^\/api\/gen\/tasks\/([^/]+)\/webhooks\/redeliver$/, "redelivery"],
  [["GET", "HEAD"], /^\/videos\/([^/]+)\.mp4$/, "video"],
];

export function routeOf(request: ContractRequest): Route {
  const path = request.path.split("?")[0] ?? "";
  const method = request.method.toUpperCase();
  for (const [methods, pattern, name] of ROUTES) {
    const match = methods.includes(method) ? pattern.exec(path) : null;
    if (match)
      return { name, taskId: match[1] === undefined ? undefined : decodeURIComponent(match[1]) } as Route;
  }
  return { name: "other" };
}

/** Every rule of docs/api.md that `answer`, the answer to `request`, breaks. */
export function checkExchange(request: ContractRequest, answer: ContractAnswer): ContractViolation[] {
  const violations: ContractViolation[] = [];
  const report: Report = (rule, ok, detail) => {
    if (!ok) violations.push({ rule, detail, docs: CONTRACT_RULES[rule].docs });
  };
  const headers = answer.headers instanceof Headers ? answer.headers : new Headers(answer.headers);
  const route = routeOf(request);
  const requestId = headers.get("x-request-id");
  report("request-id-header", isRequestId(requestId), `X-Request-Id is ${JSON.stringify(requestId)}`);

  if (route.name === "video" && answer.status < 400) {
    checkVideoAnswer(answer.status, headers, report);
    return violations;
  }
  if (request.method.toUpperCase() === "HEAD") return violations;
  const body = parsedBody(answer, headers, report);
  if (body === undefined) return violations;
  if (answer.status >= 400) checkErrorAnswer(route, answer.status, headers, body, requestId, report);
  else checkSuccessBody(route, answer.status, body, report);
  return violations;
}

function parsedBody(answer: ContractAnswer, headers: Headers, report: Report): Json | undefined {
  let body: unknown = answer.body;
  const type = headers.get("content-type") ?? "";
  report("json-body", /^application\/json\b/.test(type), `Content-Type is ${JSON.stringify(type)}`);
  if (typeof answer.body === "string") {
    try {
      body = JSON.parse(answer.body);
    } catch {
      report("json-body", false, `the body is not JSON: ${answer.body.slice(0, 60)}`);
      return undefined;
    }
  }
  report("json-body", isObject(body), "the body is not a JSON object");
  return isObject(body) ? body : undefined;
}
