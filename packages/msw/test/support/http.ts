/** Raw HTTP helpers for the mock tests: they go through msw's interception like any client. */
import type { GenVideoMock } from "../../src/index.js";

export function api(
  mock: GenVideoMock,
  path: string,
  init: { json?: unknown; key?: string | null; headers?: Record<string, string>; method?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== null) headers.authorization = `Bearer ${init.key ?? mock.apiKey}`;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  return fetch(`${mock.baseUrl}${path}`, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers,
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
}

export async function create(mock: GenVideoMock, body: Record<string, unknown>): Promise<string> {
  const response = await api(mock, "/api/gen/generate", { json: body });
  const json = (await response.json()) as { task_id?: string };
  if (response.status !== 200) throw new Error(`create failed: ${response.status} ${JSON.stringify(json)}`);
  return json.task_id!;
}

export async function status(mock: GenVideoMock, taskId: string): Promise<Record<string, unknown>> {
  return (await (await api(mock, `/api/gen/status/${taskId}`)).json()) as Record<string, unknown>;
}

export async function credits(mock: GenVideoMock): Promise<number> {
  return ((await (await api(mock, "/api/gen/account")).json()) as { credits: number }).credits;
}
