import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "./error-codes.js";
import { AuthErrorBodySchema, CreateErrorBodySchema, ErrorBodySchema } from "./errors.js";
import { API_PATHS, WEBHOOK_HEADERS } from "./http.js";
import { buildOpenApiDocument } from "./openapi.js";
import { validateGenerationRequest } from "./request.js";
import { AccountResponseSchema, CreateTaskResponseSchema, TaskStatusResponseSchema } from "./responses.js";
import { WebhookPayloadSchema } from "./webhook.js";
import { WebhookEventListSchema, WebhookRedeliveryResponseSchema } from "./webhook-events.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests walk an untyped JSON document by path.
type Json = Record<string, any>;
const document = buildOpenApiDocument() as Json;

function examplesOf(content: Json | undefined): unknown[] {
  const media = content?.["application/json"];
  return Object.values(media?.examples ?? {}).map((example) => (example as Json).value);
}

function everyOperation(): [string, string, Json][] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(
      ([method, operation]) => [path, method, operation as Json] as [string, string, Json],
    ),
  );
}

describe("buildOpenApiDocument", () => {
  it("is a valid OpenAPI 3.1 document for an independent validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is checked by a validator that does catch a broken document", async () => {
    const broken = structuredClone(document);
    delete broken.paths[API_PATHS.account].get.responses["200"].description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("describes every path of the API", () => {
    expect(Object.keys(document.paths).sort()).toEqual(Object.values(API_PATHS).sort());
    expect(document.paths[API_PATHS.createTask].post.operationId).toBe("createTask");
    expect(document.paths[API_PATHS.taskStatus].get.operationId).toBe("getTaskStatus");
    expect(document.paths[API_PATHS.account].get.operationId).toBe("getAccount");
    expect(document.paths[API_PATHS.webhookEvents].get.operationId).toBe("listWebhookEvents");
    expect(document.paths[API_PATHS.webhookRedelivery].post.responses["202"]).toBeDefined();
  });

  it("requires a bearer key everywhere, and a 401 with the three auth examples", () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const [, , operation] of everyOperation()) {
      expect(operation.security).toBeUndefined();
      expect(operation.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    }
    const examples = examplesOf(document.components.responses.Unauthorized.content);
    expect(examples).toHaveLength(3);
    for (const example of examples) expect(AuthErrorBodySchema.parse(example)).toEqual(example);
  });

  it("lists every error code somewhere, each under its own status with a valid example", () => {
    const seen = new Set<string>();
    for (const [path, , operation] of everyOperation()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (!/^[45]/.test(status) || status === "401") continue;
        const examples = examplesOf(response.content);
        expect(examples.length, `${path} ${status}`).toBeGreaterThan(0);
        for (const example of examples as Json[]) {
          seen.add(example.code);
          expect(String(ERROR_CODES[example.code as keyof typeof ERROR_CODES])).toBe(status);
          const schema = path === API_PATHS.createTask ? CreateErrorBodySchema : ErrorBodySchema;
          expect(schema.parse(example)).toEqual(example);
        }
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it("gives 429 answers their Retry-After and RateLimit headers", () => {
    const tooMany = document.paths[API_PATHS.createTask].post.responses["429"];
    expect(Object.keys(tooMany.headers)).toEqual(["Retry-After", "RateLimit-Policy", "RateLimit"]);
  });

  it("keeps every example valid against the schemas the server and clients use", () => {
    const create = document.paths[API_PATHS.createTask].post;
    const requests = examplesOf(create.requestBody.content);
    expect(requests).toHaveLength(3);
    for (const request of requests)
      expect(validateGenerationRequest(request)).toMatchObject({ success: true });
    const checks: [Json, { parse(value: unknown): unknown }][] = [
      [create.responses["200"], CreateTaskResponseSchema],
      [document.paths[API_PATHS.taskStatus].get.responses["200"], TaskStatusResponseSchema],
      [document.paths[API_PATHS.account].get.responses["200"], AccountResponseSchema],
      [document.paths[API_PATHS.webhookEvents].get.responses["200"], WebhookEventListSchema],
      [document.paths[API_PATHS.webhookRedelivery].post.responses["202"], WebhookRedeliveryResponseSchema],
      [document.webhooks.taskFinished.post.requestBody, WebhookPayloadSchema],
    ];
    for (const [holder, schema] of checks) {
      const examples = examplesOf(holder.content);
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) expect(schema.parse(example)).toEqual(example);
    }
  });

  it("describes the webhook with the Standard Webhooks headers", () => {
    const webhook = document.webhooks.taskFinished.post;
    expect(
      webhook.parameters.map((parameter: Json) => [parameter.name, parameter.in, parameter.required]),
    ).toEqual([
      [WEBHOOK_HEADERS.id, "header", true],
      [WEBHOOK_HEADERS.timestamp, "header", true],
      [WEBHOOK_HEADERS.signature, "header", true],
    ]);
    expect(webhook.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/WebhookPayload",
    });
    expect(webhook.security).toEqual([]);
  });

  it("puts every schema under components, with no dangling reference", () => {
    const references = JSON.stringify(document).match(/"\$ref":"#\/components\/[^"]+"/g) ?? [];
    expect(references.length).toBeGreaterThan(10);
    for (const reference of references) {
      const [, kind, name] = /#\/components\/(\w+)\/(\w+)/.exec(reference) ?? [];
      expect(document.components[kind as string]?.[name as string], reference).toBeDefined();
    }
    expect(document.components.schemas.GenerationRequest).toMatchObject({
      additionalProperties: false,
      required: ["prompt"],
      dependentRequired: { start_frame: ["end_frame"], end_frame: ["start_frame"] },
    });
    for (const schema of Object.values(document.components.schemas as Json)) {
      expect(schema.$schema).toBeUndefined();
      expect(schema.$id).toBeUndefined();
    }
  });

  it("builds the same document every time", () => {
    expect(buildOpenApiDocument()).toEqual(buildOpenApiDocument());
  });
});
