/**
 * The OpenAPI 3.1 document of the API, built from the zod schemas so that it cannot disagree with
 * what the server validates and the SDK parses. The build writes it to `openapi.json`; the
 * reference server serves it at `/openapi.json`. tests/openapi checks it with the tools customers
 * point at it (Redocly, Spectral, Prism, openapi-typescript, @hey-api/openapi-ts).
 */
import { ERROR_CODES, type ErrorCode, type ErrorStatus, HTTP_REASON_PHRASES } from "./error-codes.js";
import { API_PATHS, IDEMPOTENCY_KEY_HEADER } from "./http.js";
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_TTL_MS } from "./limits.js";
import { addCodeSamples } from "./openapi-code-samples.js";
import { buildComponentSchemas } from "./openapi-components.js";
import {
  ACCOUNT_EXAMPLE,
  AUTH_ERROR_EXAMPLES,
  CREATE_RESPONSE_EXAMPLE,
  ERROR_EXAMPLES,
  EXAMPLE_REQUEST_ID,
  EXAMPLE_TASK_ID,
  READ_RATE_LIMIT_EXAMPLES,
  REDELIVERY_EXAMPLE,
  REDELIVERY_NOT_FOUND_EXAMPLES,
  REQUEST_EXAMPLES,
  STATUS_EXAMPLES,
  TASK_ROUTE_ERROR_EXAMPLES,
  WEBHOOK_EVENT_LIST_EXAMPLE,
} from "./openapi-examples.js";
import { apiResponseHeaders, createSuccessHeaders, HEADER_COMPONENTS } from "./openapi-headers.js";
import { buildLinks, TASK_LINKS } from "./openapi-links.js";
import { buildVideoPath, buildWebhooks } from "./openapi-video-webhooks.js";

type Json = Record<string, unknown>;

/** An OpenAPI 3.1 document; typed loosely on purpose (validated by real tools in the tests). */
export interface OpenApiDocument {
  openapi: string;
  info: Json;
  jsonSchemaDialect: string;
  servers: Json[];
  security: Json[];
  tags: Json[];
  paths: Record<string, Record<string, Json>>;
  webhooks: Record<string, Record<string, Json>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Json;
    responses: Record<string, Json>;
    parameters: Record<string, Json>;
    headers: Record<string, Json>;
    links: Record<string, Json>;
  };
  [field: string]: unknown;
}

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /** The service's address, the document's server URL. Default: the reference server, `http://127.0.0.1:8787`. */
  serverUrl?: string;
}

/** Where `pnpm start` listens; the document's server URL unless told otherwise. */
export const DEFAULT_SERVER_URL = "http://127.0.0.1:8787";

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schemaName: string, examples: Json) => ({
  "application/json": { schema: ref("schemas", schemaName), examples },
});

type ErrorExamples = Partial<typeof ERROR_EXAMPLES>;

/** A response of error codes sharing one status; create errors carry `success: false`. */
function errorResponse(codes: readonly ErrorCode[], create: boolean, overrides: ErrorExamples): Json {
  const status: ErrorStatus = ERROR_CODES[codes[0] as ErrorCode];
  const examples: Json = {};
  for (const code of codes) {
    const variants = overrides[code] ?? ERROR_EXAMPLES[code];
    for (const [index, example] of variants.entries()) {
      const value: Json = {
        ...(create ? { success: false } : {}),
        error: HTTP_REASON_PHRASES[status],
        code,
        message: example.message,
        ...(example.issues ? { issues: example.issues } : {}),
        ...(status >= 500 ? { request_id: EXAMPLE_REQUEST_ID } : {}),
      };
      examples[index === 0 ? code : `${code}_${index + 1}`] = { summary: example.summary, value };
    }
  }
  return {
    description: `${HTTP_REASON_PHRASES[status]}: ${codes.join(", ")}.`,
    headers: apiResponseHeaders(status),
    content: {
      "application/json": { schema: errorBodyOfStatus(status, codes, create), examples },
    },
  };
}

/**
 * The error body as one status sends it: its reason phrase in `error`, one of its codes in `code`,
 * and `request_id` on a 5xx (docs/api.md#errors), so a tool reading the document knows as much.
 */
function errorBodyOfStatus(status: ErrorStatus, codes: readonly ErrorCode[], create: boolean): Json {
  const [only] = codes;
  return {
    allOf: [
      ref("schemas", create ? "CreateErrorBody" : "ErrorBody"),
      {
        type: "object",
        properties: {
          error: { const: HTTP_REASON_PHRASES[status] },
          code: codes.length === 1 ? { const: only } : { enum: [...codes] },
        },
        ...(status >= 500 ? { required: ["request_id"] } : {}),
      },
    ],
  };
}

function errorResponses(
  codes: readonly ErrorCode[],
  options: { create?: boolean; examples?: ErrorExamples },
) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_CODES[code], [...(byStatus.get(ERROR_CODES[code]) ?? []), code]);
  const responses: Json = { "401": ref("responses", "Unauthorized") };
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b))
    responses[String(status)] = errorResponse(group, options.create ?? false, options.examples ?? {});
  return responses;
}

/**
 * Errors every route can answer besides its own: rate limit, a fault of the service, a server
 * starting up, its database out of reach.
 */
const COMMON_ERRORS = [
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
  "DATABASE_UNAVAILABLE",
] as const satisfies readonly ErrorCode[];
const TASK_ERRORS = [
  "INVALID_REQUEST",
  "NOT_FOUND",
  ...COMMON_ERRORS,
] as const satisfies readonly ErrorCode[];
const READ_EXAMPLES: ErrorExamples = { ...TASK_ROUTE_ERROR_EXAMPLES, ...READ_RATE_LIMIT_EXAMPLES };

function success(
  description: string,
  schemaName: string,
  examples: Json,
  headers: Json = apiResponseHeaders("success"),
) {
  return { description, headers, content: json(schemaName, examples) };
}

function buildPaths(): OpenApiDocument["paths"] {
  return {
    [API_PATHS.createTask]: {
      post: {
        operationId: "createTask",
        tags: ["Tasks"],
        summary: "Create a video generation task",
        description:
          "Validates the request, charges the model's credits and queues the task; the video is made " +
          "asynchronously. Poll getTaskStatus, or pass callback_url to receive the taskFinished webhook. " +
          "Send an Idempotency-Key to make a retry safe.",
        parameters: [ref("parameters", "IdempotencyKey")],
        requestBody: { required: true, content: json("GenerationRequest", REQUEST_EXAMPLES) },
        responses: {
          "200": {
            ...success(
              "Task created; credits charged.",
              "CreateTaskResponse",
              { created: { summary: "Created", value: CREATE_RESPONSE_EXAMPLE } },
              createSuccessHeaders(),
            ),
            links: TASK_LINKS,
          },
          ...errorResponses(
            [
              "INVALID_REQUEST",
              "INVALID_CALLBACK_URL",
              "INSUFFICIENT_CREDITS",
              "IDEMPOTENCY_IN_PROGRESS",
              "PAYLOAD_TOO_LARGE",
              "UNSUPPORTED_MEDIA_TYPE",
              "IDEMPOTENCY_KEY_REUSED",
              ...COMMON_ERRORS,
            ],
            { create: true },
          ),
        },
      },
    },
    [API_PATHS.taskStatus]: {
      get: {
        operationId: "getTaskStatus",
        tags: ["Tasks"],
        summary: "Get the status of a task",
        description:
          "The task as of now: queued, processing, completed (with a signed video_url) or failed (message " +
          "holds the failure code). Treat any other status as not finished.",
        parameters: [ref("parameters", "TaskId")],
        responses: {
          "200": success("The task's status.", "TaskStatusResponse", STATUS_EXAMPLES),
          ...errorResponses(TASK_ERRORS, { examples: READ_EXAMPLES }),
        },
      },
    },
    [API_PATHS.account]: {
      get: {
        operationId: "getAccount",
        tags: ["Account"],
        summary: "Get the account of the calling API key",
        description: "The account the key belongs to, with its credit balance as of now.",
        responses: {
          "200": success("The account.", "AccountResponse", {
            account: { summary: "Account", value: ACCOUNT_EXAMPLE },
          }),
          ...errorResponses(COMMON_ERRORS, { examples: READ_EXAMPLES }),
        },
      },
    },
    [API_PATHS.webhookEvents]: {
      get: {
        operationId: "listWebhookEvents",
        tags: ["Webhooks"],
        summary: "List the webhook events of a task",
        description:
          "Every event sent (or being sent) to the task's callback_url, with each delivery attempt.",
        parameters: [ref("parameters", "TaskId")],
        responses: {
          "200": success("The task's webhook events, oldest first.", "WebhookEventList", {
            events: {
              summary: "One event, delivered at the second attempt",
              value: WEBHOOK_EVENT_LIST_EXAMPLE,
            },
          }),
          ...errorResponses(TASK_ERRORS, { examples: READ_EXAMPLES }),
        },
      },
    },
    [API_PATHS.webhookRedelivery]: {
      post: {
        operationId: "redeliverWebhook",
        tags: ["Webhooks"],
        summary: "Deliver the latest webhook event of a task again",
        description:
          "Puts the latest event back to pending for a fresh round of attempts, with the same webhook-id; an " +
          "event still pending is made due now. No request body. 404 when the task has no event yet.",
        parameters: [ref("parameters", "TaskId")],
        responses: {
          "202": success("Redelivery queued.", "WebhookRedeliveryResponse", {
            queued: { summary: "Queued", value: REDELIVERY_EXAMPLE },
          }),
          ...errorResponses(TASK_ERRORS, {
            examples: { ...TASK_ROUTE_ERROR_EXAMPLES, ...REDELIVERY_NOT_FOUND_EXAMPLES },
          }),
        },
      },
    },
    ...buildVideoPath(),
  };
}

/**
 * Builds the OpenAPI 3.1 document of the API: paths (the API and the signed video download), bearer
 * security, every error and response header with examples, the webhook as a `webhooks` entry and
 * every schema under `components`.
 *
 * @example
 * import { buildOpenApiDocument } from "@genvideo/schema";
 * const document = buildOpenApiDocument({ serverUrl: "https://video.example.com" });
 * document.paths["/api/gen/generate"]?.post; // the create operation
 */
export function buildOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const serverUrl = (options.serverUrl ?? DEFAULT_SERVER_URL).replace(/\/+$/, "");
  const document: OpenApiDocument = {
    openapi: "3.1.1",
    info: {
      title: "genvideo API",
      version: "1.0.0",
      summary: "Asynchronous video generation: create a task, then poll its status or receive a webhook.",
      description:
        "Create a video generation task from a prompt (text to video), two frames (frame to frame) or " +
        "reference images, get its id at once, and learn the result by polling its status or by receiving " +
        "a signed webhook. Every /api route needs an API key (Authorization: Bearer <API_KEY>) and answers " +
        "JSON; every response carries X-Request-Id. The prose contract is docs/api.md of the genvideo repository.",
      contact: { name: "genvideo", url: "https://github.com/genvideo/genvideo" },
      license: { name: "MIT", identifier: "MIT" },
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [
      {
        url: serverUrl,
        description: "The service (the reference server, `pnpm start`, listens on http://127.0.0.1:8787).",
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Tasks", description: "Create video generation tasks and follow them." },
      { name: "Account", description: "The account of the calling API key." },
      { name: "Webhooks", description: "The webhook sent when a task finishes, and its delivery record." },
      { name: "Videos", description: "Download a finished video through its signed URL." },
    ],
    paths: buildPaths(),
    webhooks: buildWebhooks(),
    components: {
      schemas: buildComponentSchemas(),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "gen_sk_ and 32 base62 characters and a 6-character checksum",
          description: "Authorization: Bearer <API_KEY>. Never in the query string.",
        },
      },
      responses: {
        Unauthorized: {
          description: "Missing, malformed or invalid API key (checked before anything else).",
          headers: apiResponseHeaders(401),
          content: json("AuthErrorBody", AUTH_ERROR_EXAMPLES),
        },
      },
      parameters: {
        TaskId: {
          name: "task_id",
          in: "path",
          required: true,
          description: "The task UUID returned by the create endpoint.",
          schema: { type: "string", format: "uuid" },
          example: EXAMPLE_TASK_ID,
        },
        IdempotencyKey: {
          name: IDEMPOTENCY_KEY_HEADER,
          in: "header",
          required: false,
          description: `Makes retries safe: the same key and body within ${IDEMPOTENCY_KEY_TTL_MS / 3_600_000} h returns the first response. 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`,
          schema: { type: "string", pattern: `^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$` },
          example: "order-1234",
        },
      },
      headers: HEADER_COMPONENTS,
      links: buildLinks(),
    },
  };
  addCodeSamples(document.paths, serverUrl, (value) => resolveLocalRef(document, value));
  return document;
}

/** Follows a `#/components/...` reference of the document (they are all local). */
function resolveLocalRef(document: OpenApiDocument, value: unknown): Json {
  const target = value as Json | undefined;
  if (typeof target?.$ref !== "string") return target ?? {};
  let current: unknown = document;
  for (const part of target.$ref.slice(2).split("/")) current = (current as Json)[part];
  return current as Json;
}
