import { expect } from "vitest";

export interface Status {
  status: string;
  task_id: string;
  video_url?: string | null;
}

/** The README's curl flow: create a task, poll its status until it is done; the last status. */
export async function createAndAwait(baseUrl: string, apiKey: string, prompt: string): Promise<Status> {
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  const created = await fetch(`${baseUrl}/api/gen/generate`, {
    method: "POST",
    headers,
    body: JSON.stringify({ prompt }),
  });
  expect(created.status, await created.clone().text()).toBe(200);
  const { task_id: taskId } = (await created.json()) as { task_id: string };
  let status: Status;
  do {
    await new Promise((resolve) => setTimeout(resolve, 250));
    status = (await (await fetch(`${baseUrl}/api/gen/status/${taskId}`, { headers })).json()) as Status;
  } while (status.status === "queued" || status.status === "processing");
  expect(status.status).toBe("completed");
  return status;
}
