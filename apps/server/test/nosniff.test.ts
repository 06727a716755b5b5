/**
 * `X-Content-Type-Options: nosniff` on every answer of a started server, over real HTTP: the
 * API and its errors, the server's own routes, videos, and 404s.
 */
import { describe, expect, it } from "vitest";
import { completedTask } from "./support/api.js";
import { FAST_SERVICE_ENV } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({ env: FAST_SERVICE_ENV });

describe("X-Content-Type-Options", () => {
  it("is nosniff on every answer", async () => {
    const { taskId, videoUrl } = await completedTask(server, "sniff me not");
    const video = new URL(videoUrl);
    const get = (path: string, init?: RequestInit) => () => server.fetch(path, init);
    const api = (path: string, init?: RequestInit & { json?: unknown; key?: string }) => () =>
      server.api(path, init);
    const answers: [string, () => Promise<Response>][] = [
      ["a create", api("/api/gen/generate", { json: { prompt: "x" } })],
      ["a refused create", api("/api/gen/generate", { json: { colour: "red" } })],
      [
        "a create that is not JSON",
        api("/api/gen/generate", { method: "POST", body: "x", headers: { "content-type": "text/plain" } }),
      ],
      ["a status", api(`/api/gen/status/${taskId}`)],
      ["an unknown task", api("/api/gen/status/00000000-0000-4000-8000-000000000000")],
      ["the account", api("/api/gen/account")],
      ["a 401", get("/api/gen/account")],
      ["a 405", api("/api/gen/account", { method: "DELETE" })],
      ["/healthz", get("/healthz")],
      ["/readyz", get("/readyz")],
      ["/openapi.json", get("/openapi.json")],
      ["/docs", get("/docs")],
      ["an unknown docs asset", get("/docs/assets/nothing.js")],
      ["/", get("/")],
      ["/dashboard", get("/dashboard")],
      ["an unknown path", get("/nowhere")],
      ["a video", get(video.pathname + video.search)],
      ["a HEAD of a video", get(video.pathname + video.search, { method: "HEAD" })],
      ["a range", get(video.pathname + video.search, { headers: { range: "bytes=0-9" } })],
      [
        "an unsatisfiable range",
        get(video.pathname + video.search, { headers: { range: "bytes=99999999-" } }),
      ],
      ["a video with a bad signature", get(`${video.pathname}?expires=1&signature=x`)],
      ["an unknown video", get("/videos/nothing.txt")],
    ];
    const missing: string[] = [];
    for (const [name, send] of answers) {
      const response = await send();
      await response.arrayBuffer();
      if (response.headers.get("x-content-type-options") !== "nosniff")
        missing.push(`${name} (${response.status})`);
    }
    expect(missing).toEqual([]);
  });
});
