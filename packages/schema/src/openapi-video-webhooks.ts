/**
 * The two parts of the OpenAPI document outside the API key's reach: the signed video download
 * (the URL's signature is the credential) and the webhook the service POSTs to a callback_url.
 */
import { VIDEO_ERROR_CODES, VIDEO_REASON_PHRASES, type VideoErrorCode } from "./error-codes.js";
import { VIDEO_PATH, WEBHOOK_HEADERS } from "./http.js";
import { VIDEO_URL_TTL_MS } from "./limits.js";
import {
  ERROR_EXAMPLES,
  EXAMPLE_REQUEST_ID,
  EXAMPLE_TASK_ID,
  VIDEO_ERROR_EXAMPLES,
  WEBHOOK_EXAMPLES,
} from "./openapi-examples.js";
import { apiResponseHeaders, videoResponseHeaders } from "./openapi-headers.js";
import { webhookGuide } from "./openapi-webhook-guide.js";

type Json = Record<string, unknown>;

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const plainHeader = (description: string, schema: Json = { type: "string" }, required = true) => ({
  description,
  required,
  schema,
});

const VIDEO_FILE_HEADERS = {
  "Accept-Ranges": plainHeader("Always bytes: single byte ranges are served.", {
    type: "string",
    enum: ["bytes"],
  }),
  ETag: plainHeader("Version of the file, for If-None-Match and If-Range."),
  "Last-Modified": plainHeader("When the file was written (HTTP date)."),
  "Cache-Control": plainHeader("private, max-age=<seconds until the URL expires>."),
  "Content-Length": plainHeader("Bytes in this answer.", { type: "integer", minimum: 0 }),
};

/** A HEAD answer carries the headers of the GET answer and no body, errors included. */
function videoError(codes: VideoErrorCode[], head: boolean): Json {
  const status = VIDEO_ERROR_CODES[codes[0] as VideoErrorCode];
  const examples: Json = {};
  for (const code of codes) examples[code] = VIDEO_ERROR_EXAMPLES[code];
  return {
    description: `${VIDEO_REASON_PHRASES[status]}: ${codes.join(", ")}.`,
    headers: videoResponseHeaders(
      status === 416
        ? {
            "Content-Range": plainHeader("bytes */<size of the video>.", {
              type: "string",
              pattern: "^bytes \\*/[0-9]+$",
            }),
          }
        : {},
    ),
    ...(head
      ? {}
      : { content: { "application/json": { schema: ref("schemas", "VideoErrorBody"), examples } } }),
  };
}

function videoOperation(method: "get" | "head"): Json {
  const head = method === "head";
  const mp4 = head
    ? undefined
    : { "video/mp4": { schema: { type: "string", contentMediaType: "video/mp4" } } };
  return {
    operationId: head ? "headVideo" : "downloadVideo",
    tags: ["Videos"],
    summary: head ? "Check a video's size and version" : "Download a finished video",
    description:
      (head
        ? "Like downloadVideo, with the same checks and headers, and no body in any answer (errors included). "
        : "The MP4 of a completed task, at the video_url its status gives: no Authorization header, the URL's " +
          `signature is the credential until expires (${VIDEO_URL_TTL_MS / 86_400_000} days by default). `) +
      "Supports a single byte Range (206, or 416 beyond the end), If-Range, and If-None-Match (304). The " +
      "signature is checked first: a wrong or missing one answers 403 whether or not the video exists.",
    security: [],
    parameters: [
      {
        name: "task_id",
        in: "path",
        required: true,
        description: "The task whose video this is.",
        schema: { type: "string", format: "uuid" },
        example: EXAMPLE_TASK_ID,
      },
      {
        name: "expires",
        in: "query",
        required: true,
        description: "Unix seconds after which the URL no longer works; part of the signed URL.",
        schema: { type: "integer", minimum: 0 },
        example: 1798761600,
      },
      {
        name: "signature",
        in: "query",
        required: true,
        description: "The URL's signature, as the task status gives it.",
        schema: { type: "string", minLength: 1 },
        example: "2b7e1516a3c0",
      },
      {
        name: "Range",
        in: "header",
        required: false,
        description: "One byte range, e.g. bytes=0-1023.",
        schema: { type: "string" },
      },
      {
        name: "If-Range",
        in: "header",
        required: false,
        description: "Apply Range only if the video is still this ETag or Last-Modified date.",
        schema: { type: "string" },
      },
      {
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "ETags the client holds; a match answers 304.",
        schema: { type: "string" },
      },
    ],
    responses: {
      "200": {
        description: "The whole video.",
        headers: videoResponseHeaders(VIDEO_FILE_HEADERS),
        ...(mp4 ? { content: mp4 } : {}),
      },
      "206": {
        description: "The byte range asked for.",
        headers: videoResponseHeaders({
          ...VIDEO_FILE_HEADERS,
          "Content-Range": plainHeader("bytes <first>-<last>/<size>.", {
            type: "string",
            pattern: "^bytes [0-9]+-[0-9]+/[0-9]+$",
          }),
        }),
        ...(mp4 ? { content: mp4 } : {}),
      },
      "304": {
        description: "Not modified: the client's copy (If-None-Match) is current.",
        headers: videoResponseHeaders(),
      },
      "403": videoError(["INVALID_SIGNATURE", "URL_EXPIRED"], head),
      "404": videoError(["NOT_FOUND"], head),
      "416": videoError(["RANGE_NOT_SATISFIABLE"], head),
      "503": {
        description:
          "Service Unavailable: SERVICE_UNAVAILABLE, the server is starting; retry after Retry-After.",
        headers: apiResponseHeaders(503),
        ...(head ? {} : { content: serviceUnavailableContent() }),
      },
    },
  };
}

function serviceUnavailableContent(): Json {
  return {
    "application/json": {
      schema: ref("schemas", "ErrorBody"),
      examples: {
        SERVICE_UNAVAILABLE: {
          summary: "Starting up",
          value: {
            error: "Service Unavailable",
            code: "SERVICE_UNAVAILABLE",
            message: ERROR_EXAMPLES.SERVICE_UNAVAILABLE[0]?.message,
            request_id: EXAMPLE_REQUEST_ID,
          },
        },
      },
    },
  };
}

/** The signed video download path, GET and HEAD. */
export function buildVideoPath(): Record<string, Record<string, Json>> {
  return { [VIDEO_PATH]: { get: videoOperation("get"), head: videoOperation("head") } };
}

/** The `taskFinished` webhook, signed per Standard Webhooks. */
export function buildWebhooks(): Record<string, Record<string, Json>> {
  const header = (name: string, description: string, schema: Json) => ({
    name,
    in: "header",
    required: true,
    description,
    schema,
  });
  return {
    taskFinished: {
      post: {
        operationId: "taskFinished",
        tags: ["Webhooks"],
        summary: "A task finished (completed, failed or timed out)",
        description: webhookGuide(),
        security: [],
        parameters: [
          header(WEBHOOK_HEADERS.id, "Event id, the same on every retry of the event; deduplicate on it.", {
            type: "string",
          }),
          header(WEBHOOK_HEADERS.timestamp, "Unix seconds of this attempt; reject old timestamps.", {
            type: "string",
            pattern: "^[0-9]+$",
          }),
          header(
            WEBHOOK_HEADERS.signature,
            'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> keyed with the account\'s whsec_ secret; several space-separated during a secret rotation.',
            { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
          ),
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: ref("schemas", "WebhookPayload"), examples: WEBHOOK_EXAMPLES },
          },
        },
        responses: {
          "2XX": { description: "Delivered." },
          default: { description: "Any other answer, or none in time, fails the attempt; it is retried." },
        },
      },
    },
  };
}
