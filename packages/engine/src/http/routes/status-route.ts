import type { Handler } from "hono";
import { taskStatusBody } from "../../tasks/status-view.js";
import type { EngineEnv, HttpServices } from "../engine-env.js";
import { jsonResponse } from "../json-response.js";
import { missingTask, taskIdParameter } from "./task-id.js";

/** `GET /api/gen/status/:task_id`: the task as of now, for its own account only. */
export function statusRoute(services: HttpServices): Handler<EngineEnv> {
  return async (c) => {
    const taskId = taskIdParameter(c.req.param("task_id"));
    // Read with the caller's key (auth-middleware.ts) whenever the path held a UUID.
    const prefetched = c.get("statusRead");
    const task =
      prefetched?.taskId === taskId
        ? prefetched.task
        : await c.get("store").transaction((tx) => tx.getTask(taskId), { readOnly: true });
    const accountId = c.get("caller").accountId;
    if (!task || task.accountId !== accountId) throw await missingTask(c.get("store"), taskId, accountId);
    return jsonResponse(c, await taskStatusBody(task, services.clock.now(), services.videoStorage), 200);
  };
}
