import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, VIDEO_ERROR_CODES } from "./error-codes.js";
import {
  AuthErrorBodySchema,
  CreateErrorBodySchema,
  ErrorBodySchema,
  VideoErrorBodySchema,
} from "./errors.js";
import { API_PATHS, VIDEO_PATH, WEBHOOK_HEADERS } from "./http.js";
import { PROMPT_MAX_LENGTH } from "./limits.js";
import { buildOpenApiDocument } from "./openapi.js";
import { GENERATION_REQUEST_FIELDS, validateGenerationRequest } from "./request.js";
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

  it("describes every path of the API, and the signed video download", () => {
    expect(Object.keys(document.paths).sort()).toEqual([...Object.values(API_PATHS), VIDEO_PATH].sort());
    expect(Object.keys(document.paths[VIDEO_PATH])).toEqual(["get", "head"]);
    expect(document.paths[API_PATHS.createTask].post.operationId).toBe("createTask");
    expect(document.paths[API_PATHS.taskStatus].get.operationId).toBe("getTaskStatus");
    expect(document.paths[API_PATHS.account].get.operationId).toBe("getAccount");
    expect(document.paths[API_PATHS.webhookEvents].get.operationId).toBe("listWebhookEvents");
    expect(document.paths[API_PATHS.webhookRedelivery].post.responses["202"]).toBeDefined();
  });

  it("requires a bearer key on every API route, and a 401 with the three auth examples", () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const [path, , operation] of everyOperation()) {
      if (path === VIDEO_PATH) {
        expect(operation.security).toEqual([]);
        expect(operation.responses["401"]).toBeUndefined();
        continue;
      }
      expect(operation.security).toBeUndefined();
      expect(operation.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    }
    expect(Object.keys(document.components.responses.Unauthorized.headers)).toEqual([
      "X-Request-Id",
      "WWW-Authenticate",
    ]);
    const examples = examplesOf(document.components.responses.Unauthorized.content);
    expect(examples).toHaveLength(3);
    for (const example of examples) expect(AuthErrorBodySchema.parse(example)).toEqual(example);
  });

  it("lists every error code somewhere, each under its own status with a valid example", () => {
    const seen = new Set<string>();
    for (const [path, method, operation] of everyOperation()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (!/^[45]/.test(status) || status === "401" || method === "head") continue;
        const examples = examplesOf(response.content);
        expect(examples.length, `${path} ${status}`).toBeGreaterThan(0);
        for (const example of examples as Json[]) {
          if (path === VIDEO_PATH && example.code !== "SERVICE_UNAVAILABLE") {
            expect(String(VIDEO_ERROR_CODES[example.code as keyof typeof VIDEO_ERROR_CODES])).toBe(status);
            expect(VideoErrorBodySchema.parse(example)).toEqual(example);
            continue;
          }
          seen.add(example.code);
          expect(String(ERROR_CODES[example.code as keyof typeof ERROR_CODES])).toBe(status);
          const schema = path === API_PATHS.createTask ? CreateErrorBodySchema : ErrorBodySchema;
          expect(schema.parse(example)).toEqual(example);
        }
      }
    }
    // A 405 answers a method that no operation has, so no operation lists it.
    const answeredByOperations = Object.keys(ERROR_CODES).filter((code) => code !== "METHOD_NOT_ALLOWED");
    expect([...seen].sort()).toEqual(answeredByOperations.sort());
  });

  it("declares X-Request-Id on every response, the RateLimit fields on every API answer but 401", () => {
    for (const [path, method, operation] of everyOperation()) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const headers = (response.$ref ? document.components.responses.Unauthorized : response).headers;
        expect(headers?.["X-Request-Id"], `${method} ${path} ${status}`).toEqual({
          $ref: "#/components/headers/RequestId",
        });
        if (path === VIDEO_PATH || status === "401") continue;
        // A server still starting answers before authentication and rate limits.
        if (status === "503") {
          expect(Object.keys(headers)).toEqual(["X-Request-Id", "Retry-After"]);
          continue;
        }
        expect(Object.keys(headers)).toEqual(expect.arrayContaining(["RateLimit-Policy", "RateLimit"]));
      }
    }
    expect(document.components.headers.RequestId.required).toBe(true);
  });

  it("gives 429 answers a required Retry-After and RateLimit fields, 409 a Retry-After", () => {
    const tooMany = document.paths[API_PATHS.createTask].post.responses["429"];
    expect(Object.keys(tooMany.headers)).toEqual([
      "X-Request-Id",
      "RateLimit-Policy",
      "RateLimit",
      "Retry-After",
    ]);
    expect(tooMany.headers["RateLimit-Policy"].required).toBe(true);
    expect(tooMany.headers.RateLimit.required).toBe(true);
    expect(document.paths[API_PATHS.createTask].post.responses["409"].headers["Retry-After"]).toBeDefined();
  });

  it("tags and describes every operation, and names a usable server", () => {
    const tags = new Set(document.tags.map((tag: Json) => tag.name));
    const operations = [
      ...everyOperation().map(([, , operation]) => operation),
      document.webhooks.taskFinished.post,
    ];
    for (const operation of operations) {
      expect(operation.description, operation.operationId).toEqual(expect.any(String));
      expect(
        operation.tags.every((tag: string) => tags.has(tag)),
        operation.operationId,
      ).toBe(true);
    }
    expect(document.info.description).toEqual(expect.any(String));
    expect(document.info.contact).toBeDefined();
    expect(document.servers).toEqual([expect.objectContaining({ url: "http://127.0.0.1:8787" })]);
    expect(buildOpenApiDocument({ serverUrl: "https://video.example.com/" }).servers[0]?.url).toBe(
      "https://video.example.com",
    );
    expect(document.jsonSchemaDialect).toBe("https://json-schema.org/draft/2020-12/schema");
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
    expect(document.components.schemas.GenerationRequest.oneOf).toEqual([
      { $ref: "#/components/schemas/TextGenerationRequest" },
      { $ref: "#/components/schemas/FrameToFrameGenerationRequest" },
      { $ref: "#/components/schemas/ReferenceGenerationRequest" },
    ]);
    for (const schema of Object.values(document.components.schemas as Json)) {
      expect(schema.$schema).toBeUndefined();
      expect(schema.$id).toBeUndefined();
    }
  });

  it("writes the request as three closed forms that name every field and forbid the others' images", () => {
    const forms: [string, string[], string[]][] = [
      ["TextGenerationRequest", ["prompt"], ["start_frame", "end_frame", "reference_images"]],
      ["FrameToFrameGenerationRequest", ["prompt", "start_frame", "end_frame"], ["reference_images"]],
      ["ReferenceGenerationRequest", ["prompt", "reference_images"], ["start_frame", "end_frame"]],
    ];
    for (const [name, required, forbidden] of forms) {
      const form = document.components.schemas[name];
      expect(form.additionalProperties, name).toBe(false);
      expect(form.required, name).toEqual(required);
      expect(Object.keys(form.properties).sort(), name).toEqual([...GENERATION_REQUEST_FIELDS].sort());
      for (const field of forbidden)
        expect(form.properties[field], `${name}.${field}`).toEqual({
          $ref: "#/components/schemas/AbsentField",
        });
      // A default on the property itself would make generators require it in request types.
      for (const field of Object.values(form.properties as Json)) expect(field?.default).toBeUndefined();
    }
    // No value fits AbsentField: no property is allowed, yet one is needed.
    expect(document.components.schemas.AbsentField).toMatchObject({
      additionalProperties: false,
      minProperties: 1,
    });
    expect(document.components.schemas.ModelType.default).toBe("gen-3-fast");
    expect(document.components.schemas.AspectRatio.default).toBe("16:9");
  });

  it("leaves video_url out of an unfinished status, typed as on the finished ones", () => {
    const { schemas } = document.components;
    for (const name of ["QueuedStatusResponse", "ProcessingStatusResponse"]) {
      expect(schemas[name].required, name).not.toContain("video_url");
      expect(schemas[name].properties.video_url, name).toEqual({
        $ref: "#/components/schemas/AbsentVideoUrl",
        type: ["null"],
      });
    }
    // A string or null that fits neither schema of the oneOf: no value fits.
    expect(schemas.AbsentVideoUrl).toMatchObject({
      type: ["string", "null"],
      oneOf: [{ not: {} }, { not: { type: ["string", "null"] } }],
    });
    expect(schemas.FailedStatusResponse.properties.video_url).toMatchObject({
      type: ["string", "null"],
      const: null,
    });
  });

  it("limits the prompt the way the server does: after trimming, in code points", () => {
    const { pattern } = document.components.schemas.TextGenerationRequest.properties.prompt;
    const prompt = new RegExp(pattern, "u");
    const cases: [string, boolean][] = [
      ["x".repeat(PROMPT_MAX_LENGTH), true],
      [`  ${"x".repeat(PROMPT_MAX_LENGTH)} \n\t`, true],
      ["🦊".repeat(PROMPT_MAX_LENGTH), true],
      ["x", true],
      [" a b ", true],
      ["x".repeat(PROMPT_MAX_LENGTH + 1), false],
      ["🦊".repeat(PROMPT_MAX_LENGTH + 1), false],
      ["", false],
      [" \n\t\u00a0\u3000", false],
    ];
    for (const [text, valid] of cases) {
      expect(prompt.test(text), JSON.stringify(text.slice(0, 12))).toBe(valid);
      expect(validateGenerationRequest({ prompt: text }).success, JSON.stringify(text.slice(0, 12))).toBe(
        valid,
      );
    }
  });

  it("shows the issues the validator really reports in the INVALID_REQUEST example", () => {
    const example =
      document.paths[API_PATHS.createTask].post.responses["400"].content["application/json"].examples
        .INVALID_REQUEST.value;
    expect(example.issues.map((issue: Json) => issue.path)).toEqual(["colour", "end_frame"]);
  });

  it("builds the same document every time", () => {
    expect(buildOpenApiDocument()).toEqual(buildOpenApiDocument());
  });
});
