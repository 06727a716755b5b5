import { TASK_DEADLINE_MS } from "@genvideo/schema";
import type { Check, CheckContext, ConformanceOutcome, Credentials, RunState, Verdict } from "./check.js";
import { createChecks, type WebhookInbox } from "./create-checks.js";
import {
  type ConformanceAnswer,
  type ConformanceRequest,
  type Exchange,
  NoAnswerError,
  send,
} from "./exchange.js";
import { finalChecks, readOnlyChecks } from "./read-only-checks.js";
import { videoChecks } from "./video-checks.js";

/**
 * Settings of `checkDeployment`.
 *
 * @example
 * ```ts
 * const report = await checkDeployment("https://api.genvideo.example", { apiKey: process.env.GENVIDEO_API_KEY! });
 * ```
 */
export interface CheckDeploymentOptions {
  /** An API key of the deployment. Never shown in the report. */
  apiKey: string;
  /** A task of that key's account whose status is checked (and, when completed, its video URL). */
  taskId?: string;
  /**
   * Adds the checks that make a task: one text-to-video create on `gen-3-fast`, which costs the
   * account one credit. `webhooks` is where its `callback_url` points; without it, no webhook is
   * asked for and its check is skipped.
   */
  create?: {
    webhooks?: WebhookInbox;
    /** The account's webhook secret(s), `whsec_...`, to verify the webhook's signature. */
    webhookSecret?: string | readonly string[];
    /** Default 1000. */
    pollIntervalMs?: number;
    /** Default the task deadline (10 minutes) plus one minute. */
    taskTimeoutMs?: number;
    /** Default 60000: the first attempt comes as the task ends. */
    webhookTimeoutMs?: number;
  };
  /** Sends every request: the global `fetch` by default, or an adapter (the msw mock's `fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /** Waits between status reads. Default a timer; a mock's `clock.advance` instead runs it in service time. */
  wait?: (ms: number) => Promise<void>;
  /** The current time in milliseconds since the epoch. Default `Date.now()`. */
  now?: () => number;
  /** Milliseconds of a monotonic clock, to time answers. Default `performance.now()`. */
  clock?: () => number;
}

/** One check of the report. */
export interface ConformanceCheck {
  /** A stable name: `auth-missing-header`, `task-status`, ... */
  id: string;
  title: string;
  outcome: ConformanceOutcome;
  /** The section of docs/api.md stating the rule. */
  rule: string;
  /** The requests sent and the answers got (the API key masked). */
  exchanges: { request: ConformanceRequest; answer: ConformanceAnswer }[];
  /** What is wrong, when the check failed. */
  problems: string[];
  /** Why it was skipped. */
  reason?: string;
  notes?: string[];
}

/** What `checkDeployment` found. */
export interface ConformanceReport {
  /** No check failed (skipped checks allowed). */
  ok: boolean;
  baseUrl: string;
  mode: "read-only" | "create";
  counts: Record<ConformanceOutcome, number>;
  durationMs: number;
  checks: ConformanceCheck[];
}

/** The deployment gave no answer at all to the first request: nothing can be graded. */
export class DeploymentUnreachableError extends Error {
  override name = "DeploymentUnreachableError";
}

/**
 * Checks a deployment of the genvideo API against the contract in docs/api.md, from outside, as a
 * customer's client sees it: authentication errors and their exact bodies, validation errors,
 * unknown tasks and routes, the headers every answer carries, a task's status by its state, the
 * video URL (signature, Range, HEAD); with `create`, a task made, followed to its end, and its
 * webhook. Read-only unless `create` is given. Throws `DeploymentUnreachableError` when the
 * deployment does not answer at all.
 *
 * @example
 * ```ts
 * const report = await checkDeployment(mock.baseUrl, { apiKey: mock.apiKey, fetch: mock.fetch });
 * expect(report.ok, formatConformanceReport(report)).toBe(true);
 * ```
 */
export async function checkDeployment(
  baseUrl: string,
  options: CheckDeploymentOptions,
): Promise<ConformanceReport> {
  const base = baseUrl.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? ((request: Request) => fetch(request));
  const clock = options.clock ?? (() => performance.now());
  const now = options.now ?? (() => Date.now());
  const wait = options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const exchanges: Exchange[] = [];
  const state: RunState = {};

  const context: CheckContext = {
    baseUrl: base,
    taskId: options.taskId,
    exchanges,
    state,
    wait,
    now,
    async send(method, pathOrUrl, credentials: Credentials, sendOptions = {}) {
      const url = /^https?:/.test(pathOrUrl) ? pathOrUrl : `${base}${pathOrUrl}`;
      const headers = { ...sendOptions.headers };
      let masked: string | undefined;
      if (credentials === "key") {
        headers.authorization = `Bearer ${options.apiKey}`;
        masked = "Bearer <--key>";
      } else if (credentials !== "none") headers.authorization = credentials.authorization;
      const exchange = await send(fetchImpl, clock, method, url, {
        ...sendOptions,
        headers,
        ...(masked ? { maskedAuthorization: masked } : {}),
      });
      exchanges.push(exchange);
      return exchange;
    },
  };

  const create = options.create;
  const checks: Check[] = [
    ...readOnlyChecks,
    ...(create
      ? createChecks({
          inbox: create.webhooks,
          webhookSecret: create.webhookSecret === undefined ? undefined : [create.webhookSecret].flat(),
          pollIntervalMs: create.pollIntervalMs ?? 1000,
          taskTimeoutMs: create.taskTimeoutMs ?? TASK_DEADLINE_MS + 60_000,
          webhookTimeoutMs: create.webhookTimeoutMs ?? 60_000,
        })
      : []),
    ...videoChecks,
    ...finalChecks,
  ];

  const started = clock();
  const results: ConformanceCheck[] = [];
  for (const check of checks) {
    let verdict: Verdict;
    try {
      verdict = await check.run(context);
    } catch (error) {
      if (!(error instanceof NoAnswerError)) throw error;
      if (exchanges.length === 0)
        throw new DeploymentUnreachableError(`${base} does not answer: ${error.message}`, { cause: error });
      verdict = { outcome: "fail", exchanges: [], problems: [error.message] };
    }
    results.push(reported(check, verdict));
  }
  const counts = { pass: 0, fail: 0, skipped: 0 };
  for (const result of results) counts[result.outcome] += 1;
  return {
    ok: counts.fail === 0,
    baseUrl: base,
    mode: create ? "create" : "read-only",
    counts,
    durationMs: Math.round(clock() - started),
    checks: results,
  };
}

function reported(check: Check, verdict: Verdict): ConformanceCheck {
  const shown = (verdict.exchanges ?? []).map(({ request, answer }) => ({ request, answer }));
  if (verdict.outcome === "skipped")
    return {
      id: check.id,
      title: check.title,
      outcome: "skipped",
      rule: check.rule,
      exchanges: shown,
      problems: [],
      reason: verdict.reason,
    };
  return {
    id: check.id,
    title: check.title,
    outcome: verdict.outcome,
    rule: check.rule,
    exchanges: shown,
    problems: verdict.problems,
    ...(verdict.notes ? { notes: verdict.notes } : {}),
  };
}
