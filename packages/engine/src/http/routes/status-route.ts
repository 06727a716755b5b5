import type { Context } from "hono";
import type { TaskStatusRecord } from "../../ports.js";
import { taskStatusBody } from "../../tasks/status-view.js";
import type { EngineEnv, HttpServices, RouteHandler } from "../engine-env.js";
import { jsonResponse } from "../json-response.js";
import { missingTask, taskIdParameter } from "./task-id.js";

/**
 * `GET /api/gen/status/:task_id`: the task as of now, for its own account only. The task read
 * with the caller's key (authentication.ts) is answered without waiting on anything but a
 * completed task's video URL: every promise a poll settles is garbage a busy server collects.
 */
export function statusRoute(services: HttpServices): RouteHandler {
  return (c) => {
    // Read with the key only for a path whose id is a UUID already, taken from that same path.
    const prefetched = c.get("statusRead");
    if (prefetched) return answer(c, services, prefetched.taskId, prefetched.task);
    const taskId = taskIdParameter(c.req.param("task_id"));
    return c
      .get("store")
      .transaction((tx) => tx.getTask(taskId), { readOnly: true })
      .then((task) => answer(c, services, taskId, task));
  };
}

function answer(
  c: Context<EngineEnv>,
  services: HttpServices,
  taskId: string,
  task: TaskStatusRecord | undefined,
): Response | Promise<Response> {
  const accountId = c.get("caller").accountId;
  if (!task || task.accountId !== accountId)
    return missingTask(c.get("store"), taskId, accountId).then((error) => Promise.reject(error));
  const body = taskStatusBody(task, services.clock.now(), services.videoStorage);
  return body instanceof Promise
    ? body.then((ready) => jsonResponse(c, ready, 200))
    : jsonResponse(c, body, 200);
}
