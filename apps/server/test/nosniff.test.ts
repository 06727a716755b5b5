/**
 * `X-Content-Type-Options: nosniff` on every answer of a started server, over real HTTP: the
 * API and its errors, the server's own routes, videos, and 404s, the metrics listener, and the
 * answers Node writes itself to requests it cannot read (over raw sockets).
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { completedTask } from "./support/api.js";
import { metricsUrlOf } from "./support/metrics.js";
import { FAST_SERVICE_ENV } from "./support/server-process.js";
import { useServer } from "./support/use-server.js";

const server = useServer({ env: { ...FAST_SERVICE_ENV, GENVIDEO_METRICS_PORT: "0" } });

/** Writes `request` on a new connection; resolves with everything read until the server closes it. */
function exchange(origin: string, request: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    let received = "";
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (received += chunk));
    // A reset after the answer (the server closes with bytes of ours unread) still leaves the answer.
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(received));
  });
}

/** The status code and the lower-cased header names and values of a raw HTTP answer. */
function parseHead(answer: string): { status: string; headers: Map<string, string> } {
  const [statusLine = "", ...lines] = answer.split("\r\n\r\n", 1)[0]!.split("\r\n");
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  return { status: statusLine.split(" ")[1] ?? "no answer", headers };
}

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

describe("answers that never reach a handler", () => {
  // Node's parser refuses these before the server sees a request; a 17 KB header is over its 16 KB limit.
  const malformed = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n";
  const oversized = `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${"a".repeat(17 * 1024)}\r\n\r\n`;

  it.each([
    ["the API port", () => server.url],
    ["the metrics port", () => metricsUrlOf(server)],
  ])("are 400 and 431 with nosniff on %s, and the connection closes", async (_, origin) => {
    for (const [request, status] of [
      [malformed, "400"],
      ["NOT A REQUEST LINE\r\n\r\n", "400"],
      [oversized, "431"],
    ] as const) {
      const { status: answered, headers } = parseHead(await exchange(origin(), request));
      expect(answered, request.slice(0, 30)).toBe(status);
      expect(headers.get("x-content-type-options"), `${status} to ${request.slice(0, 30)}`).toBe("nosniff");
      expect(headers.get("connection")).toBe("close");
    }
  });

  it("the metrics listener's own answers carry nosniff", async () => {
    const metrics = metricsUrlOf(server);
    for (const [url, init, status] of [
      [metrics, { method: "GET" }, 200],
      [metrics, { method: "HEAD" }, 200],
      [new URL("/other", metrics).href, { method: "GET" }, 404],
      [metrics, { method: "POST" }, 404],
    ] as const) {
      const response = await fetch(url, init);
      await response.arrayBuffer();
      expect(response.status).toBe(status);
      expect(response.headers.get("x-content-type-options"), `${init.method} ${url}`).toBe("nosniff");
    }
  });
});
