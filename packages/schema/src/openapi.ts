/**
 * The OpenAPI 3.1 document of the API, built from the zod schemas so that it cannot disagree with
 * what the server validates and the SDK parses. The build writes it to `openapi.json`.
 */
import { ERROR_CODES, type ErrorCode, HTTP_REASON_PHRASES } from "./error-codes.js";
import { API_PATHS, IDEMPOTENCY_KEY_HEADER, RATE_LIMIT_HEADERS, WEBHOOK_HEADERS } from "./http.js";
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_SPACING_MS,
} from "./limits.js";
import { buildComponentSchemas } from "./openapi-components.js";
import {
  ACCOUNT_EXAMPLE,
  AUTH_ERROR_EXAMPLES,
  CREATE_RESPONSE_EXAMPLE,
  ERROR_EXAMPLE_MESSAGES,
  EXAMPLE_TASK_ID,
  REDELIVERY_EXAMPLE,
  REQUEST_EXAMPLES,
  STATUS_EXAMPLES,
  VALIDATION_ISSUES_EXAMPLE,
  WEBHOOK_EVENT_LIST_EXAMPLE,
  WEBHOOK_EXAMPLES,
} from "./openapi-examples.js";

type Json = Record<string, unknown>;

/** An OpenAPI 3.1 document; typed loosely on purpose (validated by a real validator in the tests). */
export interface OpenApiDocument {
  openapi: string;
  info: Json;
  servers: Json[];
  security: Json[];
  paths: Record<string, Record<string, Json>>;
  webhooks: Record<string, Record<string, Json>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Json;
    responses: Record<string, Json>;
    parameters: Record<string, Json>;
  };
  [field: string]: unknown;
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schemaName: string, examples: Json) => ({
  "application/json": { schema: ref("schemas", schemaName), examples },
});

/** A response of error codes sharing one status; create errors carry `success: false`. */
function errorResponse(codes: readonly ErrorCode[], options: { create?: boolean } = {}): Json {
  const status = ERROR_CODES[codes[0] as ErrorCode];
  const examples: Json = {};
  for (const code of codes) {
    const body: Json = {
      ...(options.create ? { success: false } : {}),
      error: HTTP_REASON_PHRASES[ERROR_CODES[code]],
      code,
      message: ERROR_EXAMPLE_MESSAGES[code],
    };
    if (code === "INVALID_REQUEST")
      body.issues = options.create
        ? VALIDATION_ISSUES_EXAMPLE
        : [{ path: "task_id", message: "task_id must be a UUID." }];
    if (ERROR_CODES[code] >= 500) body.request_id = "req_7Hq2";
    examples[code] = { summary: code, value: body };
  }
  const response: Json = {
    description: `${HTTP_REASON_PHRASES[status]}: ${codes.join(", ")}.`,
    content: json(options.create ? "CreateErrorBody" : "ErrorBody", examples),
  };
  if (status === 503) {
    response.headers = {
      [RATE_LIMIT_HEADERS.retryAfter]: {
        description: "Seconds to wait before retrying.",
        schema: { type: "integer", minimum: 0 },
      },
    };
  }
  if (status === 429) {
    response.headers = {
      [RATE_LIMIT_HEADERS.retryAfter]: {
        description: "Seconds to wait before retrying.",
        schema: { type: "integer", minimum: 0 },
      },
      [RATE_LIMIT_HEADERS.policy]: {
        description: "The limit applied to this API key.",
        schema: { type: "string" },
      },
      [RATE_LIMIT_HEADERS.limit]: {
        description: "What is left of the limit and when it resets.",
        schema: { type: "string" },
      },
    };
  }
  return response;
}

/** The errors of an operation on one task by its id. */
const TASK_LOOKUP_ERRORS: readonly ErrorCode[] = [
  "INVALID_REQUEST",
  "NOT_FOUND",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
];

function errorResponses(codes: readonly ErrorCode[], options: { create?: boolean } = {}): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_CODES[code], [...(byStatus.get(ERROR_CODES[code]) ?? []), code]);
  const responses: Json = { "401": ref("responses", "Unauthorized") };
  for (const [status, group] of byStatus) responses[String(status)] = errorResponse(group, options);
  return responses;
}

function taskOperation(operation: Json): Json {
  return { parameters: [ref("parameters", "TaskId")], ...operation };
}

function buildPaths(): OpenApiDocument["paths"] {
  return {
    [API_PATHS.createTask]: {
      post: {
        operationId: "createTask",
        summary: "Create a video generation task",
        description:
          "Validates the request, charges the model's credits and queues the task. The video is produced asynchronously.",
        parameters: [ref("parameters", "IdempotencyKey")],
        requestBody: { required: true, content: json("GenerationRequest", REQUEST_EXAMPLES) },
        responses: {
          "200": {
            description: "Task created.",
            content: json("CreateTaskResponse", { created: { value: CREATE_RESPONSE_EXAMPLE } }),
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
              "RATE_LIMITED",
              "INTERNAL_ERROR",
              "SERVICE_UNAVAILABLE",
            ],
            { create: true },
          ),
        },
      },
    },
    [API_PATHS.taskStatus]: {
      get: taskOperation({
        operationId: "getTaskStatus",
        summary: "Get the status of a task",
        responses: {
          "200": { description: "The task's status.", content: json("TaskStatusResponse", STATUS_EXAMPLES) },
          ...errorResponses(TASK_LOOKUP_ERRORS),
        },
      }),
    },
    [API_PATHS.account]: {
      get: {
        operationId: "getAccount",
        summary: "Get the account of the calling API key",
        responses: {
          "200": {
            description: "The account.",
            content: json("AccountResponse", { account: { value: ACCOUNT_EXAMPLE } }),
          },
          ...errorResponses(["RATE_LIMITED", "INTERNAL_ERROR", "SERVICE_UNAVAILABLE"]),
        },
      },
    },
    [API_PATHS.webhookEvents]: {
      get: taskOperation({
        operationId: "listWebhookEvents",
        summary: "List the webhook events of a task",
        description:
          "Every event sent (or being sent) to the task's callback_url, with each delivery attempt.",
        responses: {
          "200": {
            description: "The task's webhook events.",
            content: json("WebhookEventList", { events: { value: WEBHOOK_EVENT_LIST_EXAMPLE } }),
          },
          ...errorResponses(TASK_LOOKUP_ERRORS),
        },
      }),
    },
    [API_PATHS.webhookRedelivery]: {
      post: taskOperation({
        operationId: "redeliverWebhook",
        summary: "Deliver the latest webhook event of a task again",
        description:
          `Puts the latest event back to pending for a fresh round of up to ${WEBHOOK_MAX_ATTEMPTS} attempts, with the same ` +
          "webhook-id; an event still pending is made due now. No request body. 404 when the task has no event yet.",
        responses: {
          "202": {
            description: "Redelivery queued.",
            content: json("WebhookRedeliveryResponse", { queued: { value: REDELIVERY_EXAMPLE } }),
          },
          ...errorResponses(TASK_LOOKUP_ERRORS),
        },
      }),
    },
  };
}

function buildWebhooks(): OpenApiDocument["webhooks"] {
  const header = (description: string, schema: Json) => ({ required: true, description, schema });
  return {
    taskFinished: {
      post: {
        operationId: "taskFinished",
        summary: "A task finished (completed, failed or timed out)",
        description:
          `Sent to the task's callback_url, signed per Standard Webhooks. Any 2xx answer is success. Up to ${WEBHOOK_MAX_ATTEMPTS} attempts, ` +
          `${WEBHOOK_RETRY_SPACING_MS / 1000} s apart; each attempt ends after ${WEBHOOK_ATTEMPT_TIMEOUT_MS / 1000} s; redirects are not followed.`,
        security: [],
        parameters: [
          {
            name: WEBHOOK_HEADERS.id,
            in: "header",
            ...header("Event id, the same on every retry of the event; deduplicate on it.", {
              type: "string",
            }),
          },
          {
            name: WEBHOOK_HEADERS.timestamp,
            in: "header",
            ...header("Unix seconds of this attempt; reject old timestamps.", {
              type: "string",
              pattern: "^[0-9]+$",
            }),
          },
          {
            name: WEBHOOK_HEADERS.signature,
            in: "header",
            ...header(
              'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> keyed with the account\'s whsec_ secret.',
              {
                type: "string",
                pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$",
              },
            ),
          },
        ],
        requestBody: { required: true, content: json("WebhookPayload", WEBHOOK_EXAMPLES) },
        responses: {
          "2XX": { description: "Delivered." },
          default: { description: "Any other answer, or none in time, fails the attempt; it is retried." },
        },
      },
    },
  };
}

/**
 * Builds the OpenAPI 3.1 document of the API: paths, bearer security, every error with examples,
 * the webhook as a `webhooks` entry and every schema under `components`.
 *
 * @example
 * import { buildOpenApiDocument } from "@genvideo/schema";
 * const document = buildOpenApiDocument();
 * document.paths["/api/gen/generate"]?.post; // the create operation
 */
export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: "3.1.1",
    info: {
      title: "genvideo API",
      version: "1.0.0",
      summary: "Asynchronous video generation: create a task, then poll its status or receive a webhook.",
      license: { name: "MIT", identifier: "MIT" },
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    servers: [
      {
        url: "{base_url}",
        description: "The service; the reference server listens on http://127.0.0.1:8787.",
        variables: { base_url: { default: "http://127.0.0.1:8787" } },
      },
    ],
    security: [{ bearerAuth: [] }],
    paths: buildPaths(),
    webhooks: buildWebhooks(),
    components: {
      schemas: buildComponentSchemas(),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "Authorization: Bearer <API_KEY>. Never in the query string.",
        },
      },
      responses: {
        Unauthorized: {
          description: "Missing, malformed or invalid API key (checked before anything else).",
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
          description: "Makes retries safe: the same key and body within 24 h returns the first response.",
          schema: { type: "string", minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
        },
      },
    },
  };
}
