/**
 * The live task list's event stream. It polls the database (every API
 * process sees every write there, so a browser connected to any of them gets
 * every change): tasks created since the newest row shown (first page only)
 * and the shown rows that have not ended, and sends each changed row as
 * server-rendered HTML, and the account's balance whenever it changes (the
 * header shows it: a task's charge or refund moves it). A stream ends after `STREAM_LIFETIME_MS`; the
 * browser's EventSource reconnects on its own.
 *
 * A task's `created_at` is taken before its transaction commits, by whichever
 * process created it, so a task can become visible after a newer one was
 * already sent (a slow request, another process's clock a little behind).
 * Each poll therefore looks `lookbackMs` of service time behind the newest
 * task sent and skips the ids it has sent from that window.
 */
import type { SSEStreamingApi } from "hono/streaming";
import type { Cursor, DashboardQueries, TaskFilter, TaskSummary } from "../store/dashboard-queries.js";
import { taskRow } from "./tasks-pages.js";

const STREAM_LIFETIME_MS = 5 * 60_000;
const MAX_WATCHED = 200;
const MAX_NEW_PER_POLL = 50;
/** Ids remembered from the look-back window; past this, the window's oldest are forgotten and not looked at again. */
const MAX_REMEMBERED = 1000;

export interface LiveTaskStreamOptions {
  queries: DashboardQueries;
  accountId: string;
  filter: TaskFilter;
  /** Newest row shown; absent on older pages (no new rows go there). */
  since: Cursor | undefined;
  watch: string[];
  intervalMs: number;
  /** How far (service ms) behind the newest task sent to look for tasks that committed late. */
  lookbackMs: number;
  closing: AbortSignal;
}

const ended = (task: TaskSummary) => task.state === "completed" || task.state === "failed";
const signature = (task: TaskSummary) => `${task.state}|${task.progress}|${task.updatedAt}`;

export async function liveTaskStream(stream: SSEStreamingApi, options: LiveTaskStreamOptions): Promise<void> {
  const { queries, accountId, filter } = options;
  const watched = new Set(options.watch.slice(0, MAX_WATCHED));
  const sent = new Map<string, string>();
  let since = options.since;
  /** The balance last sent (none yet: the first poll sends it). */
  let credits: number | undefined;
  /** Tasks sent from the look-back window: id → created_at. */
  const recent = new Map<string, number>();
  /** No task created before this is looked for again (the window's forgotten part). */
  let forgottenBefore = Number.NEGATIVE_INFINITY;
  const stopAt = Date.now() + STREAM_LIFETIME_MS;
  let aborted = false;
  stream.onAbort(() => {
    aborted = true;
  });

  const send = async (task: TaskSummary, placement: "top" | "replace") => {
    sent.set(task.id, signature(task));
    await stream.writeSSE({
      event: "task",
      data: JSON.stringify({ placement, html: String(await taskRow(task)) }),
    });
  };

  await stream.writeSSE({ event: "ready", data: "{}" });
  while (!aborted && !options.closing.aborted && Date.now() < stopAt) {
    if (since) {
      const floor = Math.max(since.createdAt - options.lookbackMs, forgottenBefore);
      for (const [id, createdAt] of recent) if (createdAt < floor) recent.delete(id);
      const fresh = await queries.tasksCreatedAfter(
        accountId,
        filter,
        { createdAt: floor, id: "" },
        MAX_NEW_PER_POLL,
        [...recent.keys()],
      );
      for (const task of fresh) {
        // A row the page already shows is replaced in place by the browser, not added twice.
        await send(task, "top");
        recent.set(task.id, task.createdAt);
        if (!ended(task) && watched.size < MAX_WATCHED) watched.add(task.id);
        if (task.createdAt > since.createdAt || (task.createdAt === since.createdAt && task.id > since.id))
          since = { createdAt: task.createdAt, id: task.id };
      }
      if (recent.size > MAX_REMEMBERED) forgottenBefore = forgetOldest(recent, recent.size - MAX_REMEMBERED);
    }
    for (const task of await queries.tasksByIds(accountId, [...watched])) {
      if (sent.get(task.id) !== signature(task)) await send(task, "replace");
      if (ended(task)) watched.delete(task.id);
    }
    const balance = await queries.accountCredits(accountId);
    if (balance !== undefined && balance !== credits) {
      credits = balance;
      await stream.writeSSE({ event: "credits", data: JSON.stringify({ credits }) });
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.intervalMs);
      options.closing.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        options.closing.removeEventListener("abort", done);
        resolve();
      }
    });
  }
}

/** Drops the `count` oldest entries; returns the created_at from which the ones kept start. */
function forgetOldest(recent: Map<string, number>, count: number): number {
  const byAge = [...recent].sort((a, b) => a[1] - b[1]);
  for (const [id] of byAge.slice(0, count)) recent.delete(id);
  return byAge[count]?.[1] ?? Number.NEGATIVE_INFINITY;
}
