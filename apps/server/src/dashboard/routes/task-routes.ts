/** The task list, its live stream, a task's page, its request images and its webhook redelivery. */
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import {
  type DashboardEnv,
  type DashboardServices,
  formField,
  notFoundPage,
  render,
  viewerOf,
} from "../dashboard-env.js";
import { page } from "../layout.js";
import { decodeCursor, encodeCursor, ORIGIN, PAGE_SIZE } from "../pagination.js";
import { liveTaskStream } from "../task-stream.js";
import {
  listQueryString,
  parseTaskListQuery,
  requestImages,
  taskListBody,
  taskPageBody,
} from "../tasks-pages.js";

/**
 * How late (real time) a task may become visible after a newer one and still
 * reach an open list: a slow create request, or the clocks of processes on one
 * PostgreSQL a little apart.
 */
const LATE_COMMIT_MS = 10_000;
const TASK_ID = /^[0-9a-f-]{36}$/;

/** Mounted at /dashboard/tasks. */
export function taskRoutes(services: DashboardServices): Hono<DashboardEnv> {
  const { queries, admin } = services;
  const app = new Hono<DashboardEnv>();

  const ownTask = async (id: string, accountId: string) => {
    if (!TASK_ID.test(id)) return undefined;
    const task = await services.store.transaction((tx) => tx.getTask(id));
    // Another account's task is exactly as absent as an unknown one.
    return task && task.accountId === accountId ? task : undefined;
  };

  app.get("/", async (c) => {
    const viewer = viewerOf(c);
    const query = parseTaskListQuery((name) => c.req.query(name));
    const tasks = await queries.listTasks(viewer.accountId, query.filter, PAGE_SIZE, query.cursor);
    const live = {
      // Older pages get no new rows; the first watches for tasks newer than its newest.
      ...(query.cursor ? {} : { since: encodeCursor(tasks[0] ?? ORIGIN) }),
      watch: tasks
        .filter((t) => t.state === "queued" || t.state === "processing")
        .map((t) => t.id)
        .join(","),
    };
    const liveUrl = `/dashboard/tasks/stream${listQueryString(query.values, live)}`;
    return render(c, page(viewer, "tasks", "Tasks", taskListBody(query, tasks, liveUrl)));
  });

  app.get("/stream", (c) => {
    const viewer = viewerOf(c);
    const query = parseTaskListQuery((name) => c.req.query(name));
    return streamSSE(c, (stream) =>
      liveTaskStream(stream, {
        queries,
        accountId: viewer.accountId,
        filter: query.filter,
        since: query.cursor ? undefined : decodeCursor(c.req.query("since")),
        watch: (c.req.query("watch") ?? "").split(",").filter((id) => TASK_ID.test(id)),
        intervalMs: services.pollIntervalMs,
        lookbackMs: LATE_COMMIT_MS * services.timeScale,
        closing: services.closing,
      }),
    );
  });

  app.get("/:id", async (c) => {
    const viewer = viewerOf(c);
    const task = await ownTask(c.req.param("id"), viewer.accountId);
    if (!task) return notFoundPage(c);
    const [ledger, events] = await Promise.all([
      queries.taskLedger(viewer.accountId, task.id),
      admin.listWebhookEvents(task.id),
    ]);
    const videoUrl =
      task.state === "completed" && task.videoKey
        ? await services.videoStorage.signedUrl(task.videoKey, task.id, services.serviceNow())
        : undefined;
    if (videoUrl) c.set("mediaOrigin", new URL(videoUrl).origin);
    const statusUrl = new URL(`/api/gen/status/${task.id}`, services.publicUrl).href;
    return render(
      c,
      page(
        viewer,
        "tasks",
        "Task",
        taskPageBody(viewer, {
          task,
          ledger,
          events,
          statusUrl,
          serviceNow: services.serviceNow(),
          ...(videoUrl ? { videoUrl } : {}),
        }),
      ),
    );
  });

  app.get("/:id/images/:index", async (c) => {
    const task = await ownTask(c.req.param("id"), viewerOf(c).accountId);
    const image =
      task && requestImages(task.request as unknown as Record<string, unknown>)[Number(c.req.param("index"))];
    const match = image && /^data:(image\/(?:png|jpeg|webp));base64,(.*)$/s.exec(image.dataUrl);
    if (!match) return c.text("Not found.", 404);
    c.header("Cache-Control", "private, max-age=3600");
    return c.body(Buffer.from(match[2]!, "base64"), 200, { "Content-Type": match[1]! });
  });

  app.post("/:id/redeliver", async (c) => {
    const task = await ownTask(c.req.param("id"), viewerOf(c).accountId);
    if (!task) return notFoundPage(c);
    await admin.redeliver(task.id);
    const back = await formField(c, "back");
    return c.redirect(back === "webhooks" ? "/dashboard/webhooks" : `/dashboard/tasks/${task.id}`, 303);
  });

  return app;
}
