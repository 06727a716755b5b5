/**
 * The proxy suite means something only if Prism does catch a wrong answer: here an upstream
 * answers the status route with a body the contract forbids, and Prism reports it.
 */
import { createServer } from "node:http";
import { buildOpenApiDocument } from "@genvideo/schema";
import { listenOnLoopback } from "@genvideo/server/testing";
import { afterAll, expect, it } from "vitest";
import { startPrismProxy, violationsOf } from "./support/prism.js";
import { scratchDirectory } from "./support/tools.js";

const scratch = scratchDirectory("catches");
afterAll(() => scratch.remove());

it("reports a wrong answer of the server as a response violation", async () => {
  const wrong = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "x-request-id": "req_1" });
    // A completed task without a video URL, a task id that is no UUID, a numeric message.
    response.end(JSON.stringify({ status: "completed", task_id: "42", message: 7, video_url: null }));
  });
  const wrongPort = await listenOnLoopback(wrong);
  const documentPath = scratch.write("openapi.json", JSON.stringify(buildOpenApiDocument()));
  const prism = await startPrismProxy(documentPath, `http://127.0.0.1:${wrongPort}`);
  try {
    const response = await fetch(`${prism.url}/api/gen/status/${crypto.randomUUID()}`, {
      headers: { authorization: "Bearer gen_sk_0123456789012345678901234567890123456" },
    });
    expect(response.status).toBe(200);
    const { request, response: found } = violationsOf(response);
    expect(request).toEqual([]);
    const where = found.map((violation) => violation.location.join("."));
    expect(where).toEqual(
      expect.arrayContaining(["response.body.task_id", "response.body.message", "response.body.video_url"]),
    );
  } finally {
    await prism.stop();
    wrong.closeAllConnections();
    wrong.close();
  }
});
