/** What every check shares: how it runs, what it concludes, and what the run knows so far. */
import type { Exchange, SendOptions } from "./exchange.js";

export type ConformanceOutcome = "pass" | "fail" | "skipped";

/** What one check concluded, before the runner adds its name and rule. */
export type Verdict =
  | { outcome: "pass" | "fail"; exchanges: Exchange[]; problems: string[]; notes?: string[] }
  | { outcome: "skipped"; reason: string; exchanges?: Exchange[] };

/** How a check authenticates: with the caller's key, with none, or with exactly this header value. */
export type Credentials = "key" | "none" | { authorization: string };

/** What the checks know about the deployment as they go. */
export interface RunState {
  /** Whether the caller's key was accepted (`GET /api/gen/account` answered 200). */
  keyAccepted?: boolean;
  /** A completed task's status body, for the video checks: the `--task` one, or the created one. */
  completedTask?: { id: string; videoUrl: string };
  /** The task `--create` made, its last status body, and the status it ended in. */
  createdTask?: { id: string; finalStatus?: Record<string, unknown> };
}

export interface CheckContext {
  /** Sends a request to a path of the deployment (or an absolute URL, such as a `video_url`). */
  send(method: string, pathOrUrl: string, credentials: Credentials, options?: SendOptions): Promise<Exchange>;
  /** Every exchange of the run so far, oldest first. */
  readonly exchanges: readonly Exchange[];
  readonly state: RunState;
  readonly taskId: string | undefined;
  /** The deployment's base URL, without a trailing slash. */
  readonly baseUrl: string;
  wait(ms: number): Promise<void>;
  now(): number;
}

export interface Check {
  /** A stable name, for tests and `--json` readers: `auth-missing-header`. */
  id: string;
  title: string;
  /** The section of docs/api.md with the rule. */
  rule: string;
  run(context: CheckContext): Promise<Verdict>;
}

export function judged(exchanges: Exchange[], problems: string[], notes?: string[]): Verdict {
  return {
    outcome: problems.length === 0 ? "pass" : "fail",
    exchanges,
    problems,
    ...(notes?.length ? { notes } : {}),
  };
}

export function skipped(reason: string): Verdict {
  return { outcome: "skipped", reason };
}
