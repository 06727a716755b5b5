import { WEBHOOK_REDELIVERY_MESSAGE } from "@genvideo/schema";
import type { Store } from "../../ports.js";
import {
  listTaskWebhookEvents,
  redeliverTaskWebhook,
  webhookEventBody,
} from "../../webhooks/webhook-events.js";
import { ApiError } from "../api-error.js";
import type { HttpServices, RouteHandler } from "../engine-env.js";
import { missingTask, taskIdParameter } from "./task-id.js";

async function ownTask(store: Store, taskIdValue: string | undefined, accountId: string) {
  const taskId = taskIdParameter(taskIdValue);
  const task = await store.transaction((tx) => tx.getTask(taskId));
  if (!task || task.accountId !== accountId) throw await missingTask(store, taskId, accountId);
  return task;
}

/** `GET /api/gen/tasks/:task_id/webhooks`: the task's notifications and every delivery attempt. */
export function listWebhooksRoute(): RouteHandler {
  return async (c) => {
    const store = c.get("store");
    const task = await ownTask(store, c.req.param("task_id"), c.get("caller").accountId);
    const events = await listTaskWebhookEvents(store, task.id);
    return c.json({ task_id: task.id, events: events.map(webhookEventBody) }, 200);
  };
}

/** `POST /api/gen/tasks/:task_id/webhooks/redeliver`: schedules the latest notification again (202). */
export function redeliverWebhookRoute(services: HttpServices): RouteHandler {
  return async (c) => {
    const store = c.get("store");
    const task = await ownTask(store, c.req.param("task_id"), c.get("caller").accountId);
    const event = await redeliverTaskWebhook(store, task.id, services.clock.now());
    if (!event) {
      throw new ApiError(
        "NOT_FOUND",
        task.callbackUrl === null
          ? "This task has no callback_url, so there is no webhook to redeliver."
          : "This task has not finished yet, so there is no webhook to redeliver.",
      );
    }
    return c.json({ success: true, message: WEBHOOK_REDELIVERY_MESSAGE, event_id: event.id }, 202);
  };
}
