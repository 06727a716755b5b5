/**
 * The checks that change nothing on the deployment: no task is made, no credit spent. A failed
 * authentication counts towards the deployment's limit per client address (20 a minute): these
 * checks present two keys that fail.
 */
import {
  API_PATHS,
  AUTH_ERROR_MESSAGES as AUTH_MESSAGES,
  RATE_LIMIT_HEADERS,
  REQUEST_ID_HEADER,
} from "@genvideo/schema";
import { type Check, type Credentials, judged, skipped } from "./check.js";
import type { Exchange, SendOptions } from "./exchange.js";
import {
  authFailure,
  errorBody,
  exactKeys,
  headerIs,
  isObject,
  issuesProblems,
  jsonContentType,
  RULES,
  requestIdProblems,
  statusBodyProblems,
  statusIs,
  UUID_V4,
} from "./rules.js";

const account = API_PATHS.account;
const create = API_PATHS.createTask;
const UNKNOWN_ROUTE = "/api/gen/no-such-route";
const statusPath = (id: string) => API_PATHS.taskStatus.replace("{task_id}", encodeURIComponent(id));
/** A UUID v4 no task has: all its random bits zero. */
const UNKNOWN_TASK = "00000000-0000-4000-8000-000000000000";
/** Well formed, but no deployment issued it (its checksum is wrong). */
const WRONG_KEY = `gen_sk_${"0".repeat(32)}AAAAAA`;
const noKey = "the deployment refused the key given with --key (see auth-key-accepted)";

/** A check that needs the caller's key: skipped when the deployment refused it. */
function needsKey(check: Check): Check {
  return {
    ...check,
    run: (context) => (context.state.keyAccepted ? check.run(context) : Promise.resolve(skipped(noKey))),
  };
}

/** A check of the answer to one request: `judge` lists what is wrong with it. */
function probe(
  about: Omit<Check, "run">,
  request: { method: string; path: string; credentials: Credentials; options?: SendOptions },
  judge: (exchange: Exchange) => string[],
): Check {
  return {
    ...about,
    async run({ send }) {
      const exchange = await send(request.method, request.path, request.credentials, request.options);
      return judged([exchange], judge(exchange));
    },
  };
}

/** A GET of `path` with `credentials` that the deployment must refuse: 401 with `message`. */
function authProbe(
  id: string,
  title: string,
  path: string,
  credentials: Credentials,
  message: string,
): Check {
  return probe({ id, title, rule: RULES.authentication }, { method: "GET", path, credentials }, (exchange) =>
    authFailure(exchange, message),
  );
}

const json = { "content-type": "application/json" };
/** Refused bodies may list what is wrong in `issues`; one that does, lists them right. */
const mayHaveIssues = (exchange: Exchange) => ({
  issues: isObject(exchange.json) && Object.hasOwn(exchange.json, "issues"),
});

export const readOnlyChecks: Check[] = [
  authProbe(
    "auth-missing-header",
    "No Authorization header: 401, exact body",
    account,
    "none",
    AUTH_MESSAGES.missingAuthorization,
  ),
  authProbe(
    "auth-malformed-header",
    "Authorization not `Bearer <key>`: 401, exact body",
    account,
    { authorization: "Token abc" },
    AUTH_MESSAGES.malformedAuthorization,
  ),
  authProbe(
    "auth-invalid-key",
    "A key the deployment never issued: 401, exact body",
    account,
    { authorization: `Bearer ${WRONG_KEY}` },
    AUTH_MESSAGES.invalidApiKey,
  ),
  authProbe(
    "auth-before-route",
    "Authentication before the route: an unknown path without a key is 401",
    UNKNOWN_ROUTE,
    "none",
    AUTH_MESSAGES.missingAuthorization,
  ),
  {
    id: "auth-key-accepted",
    title: "The key given is accepted: GET /api/gen/account answers the account",
    rule: RULES.account,
    async run({ send, state }) {
      const exchange = await send("GET", account, "key");
      state.keyAccepted = exchange.answer.status === 200;
      const body = exchange.json;
      const problems = [...statusIs(exchange, 200), ...jsonContentType(exchange)];
      if (exchange.answer.status === 200) {
        problems.push(...exactKeys(body, ["account_id", "name", "credits"]));
        if (isObject(body)) {
          if (typeof body.account_id !== "string" || !UUID_V4.test(body.account_id))
            problems.push(`account_id ${JSON.stringify(body.account_id)} is not a UUID v4`);
          if (typeof body.name !== "string") problems.push("name is not a string");
          if (!Number.isInteger(body.credits) || (body.credits as number) < 0)
            problems.push(`credits ${JSON.stringify(body.credits)} is not a whole number of credits`);
        }
      }
      return judged([exchange], problems);
    },
  },
  needsKey(
    probe(
      {
        id: "validation-error",
        title: "A refused create body: 400 INVALID_REQUEST with every issue",
        rule: RULES.validation,
      },
      // No prompt and an unknown field: refused on two counts, so nothing is made and nothing charged.
      {
        method: "POST",
        path: create,
        credentials: "key",
        options: { headers: json, body: JSON.stringify({ colour: "red", model_type: "gen-3-fast" }) },
      },
      (exchange) => [
        ...errorBody(exchange, 400, "INVALID_REQUEST", { create: true, issues: true }),
        ...issuesProblems(exchange.json, ["colour", "prompt"]),
      ],
    ),
  ),
  needsKey(
    probe(
      {
        id: "validation-bad-json",
        title: "A create body that is not JSON: 400 INVALID_REQUEST",
        rule: RULES.errors,
      },
      {
        method: "POST",
        path: create,
        credentials: "key",
        options: { headers: json, body: '{"prompt": "a fox' },
      },
      (exchange) => errorBody(exchange, 400, "INVALID_REQUEST", { create: true, ...mayHaveIssues(exchange) }),
    ),
  ),
  needsKey(
    probe(
      {
        id: "unsupported-media-type",
        title: "A create without Content-Type: application/json: 415",
        rule: RULES.errors,
      },
      {
        method: "POST",
        path: create,
        credentials: "key",
        options: { headers: { "content-type": "text/plain" }, body: "a red fox" },
      },
      (exchange) => errorBody(exchange, 415, "UNSUPPORTED_MEDIA_TYPE", { create: true }),
    ),
  ),
  needsKey(
    probe(
      {
        id: "task-unknown",
        title: "The status of a task that does not exist: 404 NOT_FOUND",
        rule: RULES.endpoints,
      },
      { method: "GET", path: statusPath(UNKNOWN_TASK), credentials: "key" },
      (exchange) => errorBody(exchange, 404, "NOT_FOUND"),
    ),
  ),
  needsKey(
    probe(
      {
        id: "task-id-not-uuid",
        title: "A task id that is not a UUID: 400 INVALID_REQUEST",
        rule: RULES.endpoints,
      },
      { method: "GET", path: statusPath("not-a-task-id"), credentials: "key" },
      (exchange) => errorBody(exchange, 400, "INVALID_REQUEST", mayHaveIssues(exchange)),
    ),
  ),
  needsKey(
    probe(
      { id: "route-unknown", title: "A path that does not exist: 404 NOT_FOUND", rule: RULES.errors },
      { method: "GET", path: UNKNOWN_ROUTE, credentials: "key" },
      (exchange) => errorBody(exchange, 404, "NOT_FOUND"),
    ),
  ),
  needsKey(
    probe(
      {
        id: "method-not-allowed",
        title: "A known path with another method: 405 with Allow",
        rule: RULES.errors,
      },
      { method: "GET", path: create, credentials: "key" },
      (exchange) => [
        ...errorBody(exchange, 405, "METHOD_NOT_ALLOWED"),
        ...headerIs(exchange, "allow", "POST"),
      ],
    ),
  ),
  {
    id: "task-status",
    title: "The status of the task given by --task: its shape by status",
    rule: RULES.status,
    async run({ send, state, taskId }) {
      if (taskId === undefined) return skipped("no --task given");
      if (!state.keyAccepted) return skipped(noKey);
      const exchange = await send("GET", statusPath(taskId), "key");
      const problems = [...statusIs(exchange, 200), ...jsonContentType(exchange)];
      if (exchange.answer.status === 200) problems.push(...statusBodyProblems(exchange.json, taskId));
      const body = exchange.json;
      if (problems.length === 0 && isObject(body) && body.status === "completed")
        state.completedTask = { id: taskId, videoUrl: body.video_url as string };
      return judged([exchange], problems);
    },
  },
];

/** Checks over every answer of the run: they go last. */
export const finalChecks: Check[] = [
  needsKey({
    id: "request-id",
    title: "X-Request-Id: the caller's own echoed, and one on every answer",
    rule: RULES.headers,
    async run({ send, exchanges, baseUrl }) {
      const own = `conformance-${Math.random().toString(36).slice(2, 12)}`;
      const exchange = await send("GET", account, "key", { headers: { [REQUEST_ID_HEADER]: own } });
      const problems = headerIs(exchange, REQUEST_ID_HEADER.toLowerCase(), own);
      // Only the deployment's own answers: a video_url may point at an object store.
      for (const earlier of exchanges.filter((entry) => entry.request.url.startsWith(baseUrl))) {
        for (const problem of requestIdProblems(earlier))
          problems.push(`${earlier.request.method} ${new URL(earlier.request.url).pathname}: ${problem}`);
      }
      return judged([exchange], problems);
    },
  }),
  needsKey({
    id: "rate-limit-headers",
    title: "RateLimit-Policy and RateLimit on authenticated answers, none on 401s",
    rule: RULES.rateLimits,
    async run({ exchanges }) {
      const names = [RATE_LIMIT_HEADERS.policy, RATE_LIMIT_HEADERS.limit].map((name) => name.toLowerCase());
      const authenticated = exchanges.filter(
        (exchange) => exchange.answer.status === 200 && new URL(exchange.request.url).pathname === account,
      );
      const problems: string[] = [];
      const carrying = authenticated.filter((exchange) =>
        names.some((name) => exchange.answer.headers[name]),
      );
      for (const exchange of carrying)
        for (const name of names)
          if (!exchange.answer.headers[name])
            problems.push(`${name} missing beside the other rate-limit header`);
      if (carrying.length > 0 && carrying.length < authenticated.length)
        problems.push("rate-limit headers on some authenticated answers and not on others");
      const onRefusals = exchanges.filter(
        (exchange) => exchange.answer.status === 401 && names.some((name) => exchange.answer.headers[name]),
      );
      if (onRefusals.length) problems.push(`rate-limit headers on ${onRefusals.length} answer(s) 401`);
      const notes =
        carrying.length === 0 && problems.length === 0
          ? ["no rate-limit headers at all: rate limits are off on this deployment"]
          : [];
      return judged([], problems, notes);
    },
  }),
];
