/**
 * The live task list's event stream. It polls the database (every API
 * process sees every write there, so a browser connected to any of them gets
 * every change): tasks created since the newest row shown (first page only)
 * and the shown rows that have not ended, and sends each changed row as
 * server-rendered HTML. A stream ends after `STREAM_LIFETIME_MS`; the
 * browser's EventSource reconnects on its own.
 */
import type { SSEStreamingApi } from "hono/streaming";
import type { Cursor, DashboardQueries, TaskFilter, TaskSummary } from "../store/dashboard-queries.js";
import { taskRow } from "./tasks-pages.js";

const STREAM_LIFETIME_MS = 5 * 60_000;
const MAX_WATCHED = 200;
const MAX_NEW_PER_POLL = 50;

export interface LiveTaskStreamOptions {
  queries: DashboardQueries;
  accountId: string;
  filter: TaskFilter;
  /** Newest row shown; absent on older pages (no new rows go there). */
  since: Cursor | undefined;
  watch: string[];
  intervalMs: number;
  closing: AbortSignal;
}

const ended = (task: TaskSummary) => task.state === "completed" || task.state === "failed";
const signature = (task: TaskSummary) => `${task.state}|${task.progress}|${task.updatedAt}`;

export async function liveTaskStream(stream: SSEStreamingApi, options: LiveTaskStreamOptions): Promise<void> {
  const { queries, accountId, filter } = options;
  const watched = new Set(options.watch.slice(0, MAX_WATCHED));
  const sent = new Map<string, string>();
  let since = options.since;
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
      const fresh = await queries.tasksCreatedAfter(accountId, filter, since, MAX_NEW_PER_POLL);
      for (const task of fresh) {
        await send(task, "top");
        if (!ended(task) && watched.size < MAX_WATCHED) watched.add(task.id);
      }
      const newest = fresh.at(-1);
      if (newest) since = { createdAt: newest.createdAt, id: newest.id };
    }
    for (const task of await queries.tasksByIds(accountId, [...watched])) {
      if (sent.get(task.id) !== signature(task)) await send(task, "replace");
      if (ended(task)) watched.delete(task.id);
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
