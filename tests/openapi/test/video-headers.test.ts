/**
 * The signed video download answers with the same headers on the reference server and in the msw
 * mock, request for request, and each answer carries every header the served document marks
 * required for it (Last-Modified, X-Request-Id, ...).
 */
import { setupGenVideoMock } from "@genvideo/msw/vitest";
import { eventually, type RunningServer, startServer, TEST_API_KEY } from "@genvideo/server/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDocumentedServer } from "./support/served-document.js";

// Headers of the connection, not of the answer: a real socket has them, an intercepted fetch not.
const TRANSPORT_HEADERS = new Set(["connection", "date", "keep-alive", "transfer-encoding"]);

const mock = setupGenVideoMock({ baseUrl: "https://api.genvideo.test", onUnhandledFrame: "bypass" });
const cleanups: (() => unknown)[] = [];
let server: RunningServer;
let document: Record<string, any>;

/** A completed task's video URL, on a base (server or mock) and with its key. */
async function videoUrl(base: string, key: string, finish: (taskId: string) => Promise<unknown>) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const created = await fetch(`${base}/api/gen/generate`, {
    method: "POST",
    headers,
    body: JSON.stringify({ prompt: "A red fox" }),
  });
  const { task_id } = (await created.json()) as { task_id: string };
  await finish(task_id);
  const status = await fetch(`${base}/api/gen/status/${task_id}`, { headers });
  return new URL(((await status.json()) as { video_url: string }).video_url);
}

type Answers = Awaited<ReturnType<typeof answers>>;
let onServer: Answers;
let inMock: Answers;

beforeAll(async () => {
  ({
    server,
    served: { document },
  } = await startDocumentedServer(
    () => startServer({ env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_TIME_SCALE: "300" } }),
    cleanups,
  ));
  const serverUrl = await videoUrl(server.url, TEST_API_KEY, (taskId) =>
    eventually(
      async () => {
        const response = await server.api(`/api/gen/status/${taskId}`);
        return ((await response.json()) as { status: string }).status === "completed" || undefined;
      },
      30_000,
      "the task to complete",
    ),
  );
  onServer = await answers(server.url, serverUrl);
  // In one go: the mock forgets its tasks after each test.
  inMock = await answers(
    mock.baseUrl,
    await videoUrl(mock.baseUrl, mock.apiKey, () => mock.clock.advance("2m")),
  );
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Each request by the response of the document it should get. */
const REQUESTS: {
  name: string;
  method: string;
  documented?: [method: string, status: string];
  path: (url: URL, etag: string) => string;
  headers?: (etag: string) => Record<string, string>;
}[] = [
  { name: "the video", method: "GET", documented: ["get", "200"], path: (url) => url.pathname + url.search },
  {
    name: "its headers",
    method: "HEAD",
    documented: ["head", "200"],
    path: (url) => url.pathname + url.search,
  },
  {
    name: "a range",
    method: "GET",
    documented: ["get", "206"],
    path: (url) => url.pathname + url.search,
    headers: () => ({ range: "bytes=0-9" }),
  },
  {
    name: "not modified",
    method: "GET",
    documented: ["get", "304"],
    path: (url) => url.pathname + url.search,
    headers: (etag) => ({ "if-none-match": etag }),
  },
  {
    name: "a range past the end",
    method: "GET",
    documented: ["get", "416"],
    path: (url) => url.pathname + url.search,
    headers: () => ({ range: "bytes=999999999-" }),
  },
  {
    name: "a wrong signature",
    method: "GET",
    documented: ["get", "403"],
    path: (url) => `${url.pathname}?expires=${url.searchParams.get("expires")}&signature=0000`,
  },
  { name: "another method", method: "DELETE", path: (url) => url.pathname + url.search },
  { name: "no video named", method: "GET", path: () => "/videos/" },
];

async function answers(base: string, url: URL) {
  const etag = (await fetch(new URL(url.pathname + url.search, base))).headers.get("etag") ?? "";
  const result: Record<string, { status: number; headers: string[] }> = {};
  for (const request of REQUESTS) {
    const response = await fetch(new URL(request.path(url, etag), base), {
      method: request.method,
      headers: request.headers?.(etag) ?? {},
    });
    await response.arrayBuffer();
    const names = [...response.headers.keys()].filter((name) => !TRANSPORT_HEADERS.has(name)).sort();
    result[request.name] = { status: response.status, headers: names };
  }
  return result;
}

it("gives the same statuses and headers on the server and in the mock", () => {
  expect(inMock).toEqual(onServer);
  expect(Object.values(onServer).map((answer) => answer.status)).toEqual([
    200, 200, 206, 304, 416, 403, 405, 404,
  ]);
});

it("carries every header the document requires, on the server and in the mock", () => {
  const headersDoc = document.components.headers as Record<string, { required?: boolean }>;
  for (const [base, got] of [
    ["the server", onServer],
    ["the mock", inMock],
  ] as const) {
    for (const request of REQUESTS) {
      if (!request.documented) continue;
      const [method, status] = request.documented;
      const documented = document.paths["/videos/{task_id}.mp4"][method].responses[status].headers as Record<
        string,
        { required?: boolean; $ref?: string }
      >;
      const required = Object.entries(documented)
        .filter(([, header]) => header.required ?? headersDoc[header.$ref?.split("/").pop() ?? ""]?.required)
        .map(([name]) => name.toLowerCase());
      expect(
        required.filter((name) => !got[request.name]?.headers.includes(name)),
        `${base}: ${request.name}`,
      ).toEqual([]);
    }
  }
});
