/**
 * What the document gives the API reference and the tools that follow it: body-less HEAD answers,
 * links from a created task to its other operations, code samples for every operation, and the
 * webhook guide.
 */
import { describe, expect, it } from "vitest";
import { API_PATHS, VIDEO_PATH, WEBHOOK_HEADERS } from "./http.js";
import { WEBHOOK_MAX_ATTEMPTS } from "./limits.js";
import { buildOpenApiDocument } from "./openapi.js";
import { REQUEST_EXAMPLES } from "./openapi-examples.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests walk an untyped JSON document by path.
type Json = Record<string, any>;

const serverUrl = "https://video.example.com";
const document = buildOpenApiDocument({ serverUrl }) as Json;

const operations = (): [string, string, Json][] =>
  Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(
      ([method, operation]) => [path, method, operation] as [string, string, Json],
    ),
  );

describe("HEAD answers", () => {
  it("declare headers only, the same headers as the GET answer of the same status", () => {
    const video = document.paths[VIDEO_PATH];
    for (const [status, response] of Object.entries(video.head.responses as Json)) {
      expect(response.content, `HEAD ${status}`).toBeUndefined();
      expect(response.headers, `HEAD ${status}`).toEqual(video.get.responses[status].headers);
    }
    expect(video.get.responses["404"].content).toBeDefined();
  });
});

describe("links", () => {
  it("lead from the create answer's task_id to the status, the webhook events and their redelivery", () => {
    const created = document.paths[API_PATHS.createTask].post.responses["200"];
    const links = Object.values(created.links as Json).map(
      (link) => document.components.links[String(link.$ref).split("/").pop() as string],
    );
    expect(links.map((link) => link.operationId)).toEqual([
      "getTaskStatus",
      "listWebhookEvents",
      "redeliverWebhook",
    ]);
    const operationIds = new Map(operations().map(([path, , operation]) => [operation.operationId, path]));
    for (const link of links) {
      expect(link.parameters).toEqual({ task_id: "$response.body#/task_id" });
      expect(operationIds.get(link.operationId)).toContain("{task_id}");
    }
    expect(document.components.schemas.CreateTaskResponse.required).toContain("task_id");
  });
});

describe("code samples", () => {
  it("give every operation a curl and a TypeScript sample against the document's server", () => {
    for (const [path, method, operation] of operations()) {
      const samples = operation["x-codeSamples"] as Json[];
      const name = `${method} ${path}`;
      expect(samples.map((sample) => sample.lang).sort(), name).toEqual(
        Array.from({ length: samples.length / 2 }, () => ["Shell", "TypeScript"])
          .flat()
          .sort(),
      );
      for (const sample of samples) {
        expect(sample.source, name).toContain(serverUrl);
        expect(sample.label, name).toMatch(/^(curl|@genvideo\/sdk|fetch)/);
      }
      const curl = samples.find((sample) => sample.lang === "Shell")?.source as string;
      if (path.startsWith("/api/"))
        expect(curl, name).toContain('-H "Authorization: Bearer $GENVIDEO_API_KEY"');
      else expect(curl, name).not.toContain("Authorization");
    }
  });

  it("show each of the three request forms, curl and SDK, with the example's exact body", () => {
    const samples = document.paths[API_PATHS.createTask].post["x-codeSamples"] as Json[];
    const forms = Object.values(REQUEST_EXAMPLES);
    expect(samples).toHaveLength(forms.length * 2);
    for (const [index, { summary, value }] of forms.entries()) {
      const [curl, sdk] = [samples[index * 2], samples[index * 2 + 1]] as Json[];
      expect(curl?.label).toBe(`curl: ${summary}`);
      expect(sdk?.label).toBe(`@genvideo/sdk: ${summary}`);
      const body = /-d '([\s\S]*)'\n$/.exec(curl?.source)?.[1];
      expect(JSON.parse(body ?? "")).toEqual(value);
      expect(sdk?.source).toContain("client.createTask(");
      expect(sdk?.source).toContain(`prompt: ${JSON.stringify(value.prompt)}`);
    }
  });

  it("use the SDK's own methods where it has one", () => {
    const sdk = (path: string, method: string) =>
      (document.paths[path][method]["x-codeSamples"] as Json[]).find((sample) => sample.lang === "TypeScript")
        ?.source;
    expect(sdk(API_PATHS.taskStatus, "get")).toContain("client.getStatus(");
    expect(sdk(VIDEO_PATH, "get")).toContain("client.pollUntilDone(");
    expect(sdk(API_PATHS.account, "get")).toContain("await fetch(");
  });
});

describe("the webhook guide", () => {
  const guide = document.webhooks.taskFinished.post.description as string;

  it("covers the payload, the three headers, both ways to verify, the retries and the answer", () => {
    for (const heading of [
      "Payload",
      "The three headers",
      "Verify with `verifyWebhook`",
      "Verify by hand",
      "Retry schedule",
      "What to answer",
    ])
      expect(guide).toContain(`### ${heading}`);
    for (const header of Object.values(WEBHOOK_HEADERS)) expect(guide).toContain(`\`${header}\``);
    expect(guide).toContain("await verifyWebhook(c.req.raw");
    expect(guide).toContain('createHmac("sha256", key)');
    expect(guide).toContain(
      `${WEBHOOK_MAX_ATTEMPTS}. 30 s after attempt ${WEBHOOK_MAX_ATTEMPTS - 1} failed.`,
    );
  });
});
