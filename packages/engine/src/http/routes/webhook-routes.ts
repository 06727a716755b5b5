import { WEBHOOK_REDELIVERY_MESSAGE } from "@genvideo/schema";
import type { Handler } from "hono";
import {
  listTaskWebhookEvents,
  redeliverTaskWebhook,
  webhookEventBody,
} from "../../webhooks/webhook-events.js";
import { ApiError } from "../api-error.js";
import type { EngineEnv, HttpServices } from "../engine-env.js";
import { taskIdParameter, taskNotFound } from "./task-id.js";

async function ownTask(services: HttpServices, taskIdValue: string | undefined, accountId: string) {
  const taskId = taskIdParameter(taskIdValue);
  const task = await services.store.transaction((tx) => tx.getTask(taskId));
  if (!task || task.accountId !== accountId) throw taskNotFound();
  return task;
}

/** `GET /api/gen/tasks/:task_id/webhooks`: the task's notifications and every delivery attempt. */
export function listWebhooksRoute(services: HttpServices): Handler<EngineEnv> {
  return async (c) => {
    const task = await ownTask(services, c.req.param("task_id"), c.var.caller.account.id);
    const events = await listTaskWebhookEvents(services.store, task.id);
    return c.json({ task_id: task.id, events: events.map(webhookEventBody) }, 200);
  };
}

/** `POST /api/gen/tasks/:task_id/webhooks/redeliver`: schedules the latest notification again (202). */
export function redeliverWebhookRoute(services: HttpServices): Handler<EngineEnv> {
  return async (c) => {
    const task = await ownTask(services, c.req.param("task_id"), c.var.caller.account.id);
    const event = await redeliverTaskWebhook(services.store, task.id, services.clock.now());
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
