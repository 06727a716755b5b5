/** The error answers of docs/api.md#errors, #authentication and #video-download. */
import type { Report, Route } from "./check.js";
import {
  API_ERROR_STATUSES,
  AUTH_MESSAGES,
  isObject,
  type Json,
  REASON_PHRASES,
  VIDEO_ERROR_STATUSES,
} from "./values.js";

const show = (value: unknown) => JSON.stringify(value);

export function checkErrorAnswer(
  route: Route,
  status: number,
  headers: Headers,
  body: Json,
  requestId: string | null,
  report: Report,
): void {
  if (status === 401 && route.name !== "video") {
    checkAuthError(headers, body, report);
    return;
  }
  const video = route.name === "video" && status < 500;
  const codes = video ? VIDEO_ERROR_STATUSES : API_ERROR_STATUSES;
  report(
    video ? "video-error" : "error-body",
    body.error === REASON_PHRASES[status] &&
      codes[body.code as string] === status &&
      typeof body.message === "string" &&
      body.message.length > 0,
    `${status} ${show({ error: body.error, code: body.code, message: body.message })}`,
  );
  if (status >= 500)
    report(
      "error-request-id",
      body.request_id === requestId,
      `request_id ${show(body.request_id)}, X-Request-Id ${show(requestId)}`,
    );
  if (route.name === "create")
    report("create-error-success", body.success === false, `success ${show(body.success)}`);
  if (route.name === "create" && body.code === "INVALID_REQUEST") {
    const issues = body.issues;
    report(
      "validation-issues",
      Array.isArray(issues) &&
        issues.length > 0 &&
        issues.every(
          (issue) => isObject(issue) && typeof issue.path === "string" && typeof issue.message === "string",
        ),
      `issues ${show(issues)}`,
    );
  }
  if (status === 429 || status === 409 || status === 503) {
    const retryAfter = headers.get("retry-after");
    report("retry-after", /^\d+$/.test(retryAfter ?? ""), `Retry-After ${show(retryAfter)}`);
  }
  if (status === 405) report("allow-header", headers.has("allow"), "405 without Allow");
}

function checkAuthError(headers: Headers, body: Json, report: Report): void {
  const fields = Object.keys(body).sort().join(",");
  report(
    "auth-error",
    fields === "error,message" &&
      body.error === "Unauthorized" &&
      AUTH_MESSAGES.includes(body.message as string) &&
      /^Bearer\b/.test(headers.get("www-authenticate") ?? ""),
    `${show(body)} with WWW-Authenticate ${show(headers.get("www-authenticate"))}`,
  );
}
