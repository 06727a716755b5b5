/** Small helpers over the HTTP API for the server tests. */
import { expect } from "vitest";
import { eventually, type RunningServer } from "./server-process.js";

export interface StatusBody {
  status: string;
  task_id: string;
  message: string;
  video_url?: string | null;
  [extension: string]: unknown;
}

export async function createTask(server: RunningServer, body: unknown, key?: string): Promise<string> {
  const response = await server.api("/api/gen/generate", { json: body, key });
  const json = (await response.json()) as { task_id?: string };
  expect(response.status, JSON.stringify(json)).toBe(200);
  expect(json).toMatchObject({ success: true, message: "Task created" });
  return json.task_id!;
}

export async function getStatus(server: RunningServer, taskId: string, key?: string): Promise<StatusBody> {
  const response = await server.api(`/api/gen/status/${taskId}`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as StatusBody;
}

export async function credits(server: RunningServer, key?: string): Promise<number> {
  const response = await server.api("/api/gen/account", { key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { credits: number }).credits;
}

/** Polls the status endpoint until the task is completed or failed. */
export function waitForTerminal(server: RunningServer, taskId: string, timeoutMs = 10_000, key?: string) {
  return eventually(
    async () => {
      const status = await getStatus(server, taskId, key);
      return status.status === "completed" || status.status === "failed" ? status : undefined;
    },
    timeoutMs,
    `task ${taskId} to finish`,
  );
}

/** Creates a text task, waits until it has completed, and returns its id and `video_url`. */
export async function completedTask(
  server: RunningServer,
  prompt: string,
  timeoutMs = 15_000,
): Promise<{ taskId: string; videoUrl: string }> {
  const taskId = await createTask(server, { prompt });
  const done = await waitForTerminal(server, taskId, timeoutMs);
  expect(done.status, done.message).toBe("completed");
  return { taskId, videoUrl: done.video_url as string };
}
