/** The delivery log of a task's webhooks, read over the API of a running test server. */
import { expect } from "vitest";
import { eventually, type RunningServer } from "../../src/testing/reference-server.js";

export interface EventListing {
  id: string;
  state: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: {
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
  }[];
}

export async function webhookEvents(server: RunningServer, taskId: string): Promise<EventListing[]> {
  const response = await server.api(`/api/gen/tasks/${taskId}/webhooks`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { events: EventListing[] }).events;
}

/** Polls the listing until the task's only event has left `pending`. */
export function settledEvent(
  server: RunningServer,
  taskId: string,
  timeoutMs = 10_000,
): Promise<EventListing> {
  return eventually(
    async () => {
      const [event, ...more] = await webhookEvents(server, taskId);
      expect(more).toHaveLength(0);
      return event && event.state !== "pending" ? event : undefined;
    },
    timeoutMs,
    `the webhook of ${taskId} to settle`,
  );
}
