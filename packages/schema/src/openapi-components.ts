/**
 * The `components.schemas` of the OpenAPI document, generated from the zod schemas with
 * `toJSONSchema` (draft 2020-12). Descriptions live here, not on the schemas, so that clients
 * importing a schema do not bundle documentation text.
 */
import * as z from "zod/mini";
import {
  DEFAULT_ASPECT_RATIO,
  DEFAULT_MODEL_TYPE,
  FAILURE_CATALOG,
  FAILURE_CODES,
  TASK_STATUSES,
} from "./catalog.js";
import {
  AuthErrorBodySchema,
  CreateErrorBodySchema,
  ErrorBodySchema,
  VideoErrorBodySchema,
} from "./errors.js";
import {
  CALLBACK_URL_MAX_LENGTH,
  IMAGE_MAX_BYTES,
  IMAGE_MAX_SIDE_PX,
  PROMPT_MAX_LENGTH,
  PROMPT_MIN_LENGTH,
  REFERENCE_IMAGES_MAX_COUNT,
  REFERENCE_IMAGES_MIN_COUNT,
} from "./limits.js";
import { type AddComponent, describeWebhookEvents, type Metadata } from "./openapi-webhook-events.js";
import { GenerationRequestSchema } from "./request.js";
import {
  AccountResponseSchema,
  CompletedStatusResponseSchema,
  CreateTaskResponseSchema,
  FailedStatusResponseSchema,
  ProcessingStatusResponseSchema,
  QueuedStatusResponseSchema,
  TaskStatusResponseSchema,
} from "./responses.js";
import { ValidationIssueSchema } from "./validation-issue.js";
import {
  CompletedWebhookPayloadSchema,
  FailedWebhookPayloadSchema,
  WebhookPayloadSchema,
} from "./webhook.js";
import {
  AccountIdString,
  RequestIdString,
  TaskIdString,
  TimestampString,
  UrlString,
  WebhookEventIdString,
} from "./wire-strings.js";

type JsonSchema = Record<string, unknown>;

const IMAGE_PATTERN = "^data:image/(jpeg|png|webp);base64,[A-Za-z0-9+/]*={0,2}$";
const IMAGE_DESCRIPTION =
  `Image as a data URI: data:image/<jpeg|png|webp>;base64,<data>. At most ${IMAGE_MAX_BYTES / 1024 / 1024} MiB ` +
  `decoded, bytes matching the declared type, at most ${IMAGE_MAX_SIDE_PX} px a side.`;

/**
 * The prompt's limit as the server counts it: after trimming. JSON Schema's `maxLength` counts the
 * raw string, so it would refuse a valid prompt with surrounding spaces; this pattern allows any
 * whitespace around 1 to PROMPT_MAX_LENGTH code points that start and end with a non-space.
 * (ECMAScript's `\s` is exactly what `String.prototype.trim` removes.)
 */
const PROMPT_PATTERN = `^\\s*\\S(?:[\\s\\S]{0,${PROMPT_MAX_LENGTH - 2}}\\S)?\\s*$`;

/** The three closed forms of a create request: which fields each requires and which it must not carry. */
const REQUEST_FORMS = [
  {
    id: "TextGenerationRequest",
    title: "Text to video",
    description: "A prompt only: no frames, no reference images.",
    required: [],
    forbidden: ["start_frame", "end_frame", "reference_images"],
  },
  {
    id: "FrameToFrameGenerationRequest",
    title: "Frame to frame",
    description: "A prompt with start_frame and end_frame, both required; no reference images.",
    required: ["start_frame", "end_frame"],
    forbidden: ["reference_images"],
  },
  {
    id: "ReferenceGenerationRequest",
    title: "Reference images",
    description: `A prompt with ${REFERENCE_IMAGES_MIN_COUNT} to ${REFERENCE_IMAGES_MAX_COUNT} reference_images; no frames.`,
    required: ["reference_images"],
    forbidden: ["start_frame", "end_frame"],
  },
] as const;

type RequestField = keyof typeof GenerationRequestSchema.shape;
type ImageField = (typeof REQUEST_FORMS)[number]["forbidden"][number];

/**
 * One zod schema per request form, made of the very field schemas of GenerationRequestSchema, so the
 * document's `oneOf` cannot drift from the single schema the server validates with (a test checks
 * that a body is valid exactly when one form accepts it). A field a form must not carry is
 * `never`, written as AbsentField (below), which is what makes generated TypeScript and zod refuse
 * a `{ prompt, start_frame }` or a frames-plus-references request.
 */
function requestFormSchemas() {
  const fields = GenerationRequestSchema.shape;
  return REQUEST_FORMS.map((form) => {
    const shape: Partial<Record<RequestField, z.core.$ZodType>> = {
      prompt: fields.prompt,
      model_type: fields.model_type,
      aspect_ratio: fields.aspect_ratio,
    };
    const images: ImageField[] = ["start_frame", "end_frame", "reference_images"];
    for (const field of images) {
      if ((form.forbidden as readonly string[]).includes(field)) shape[field] = z.optional(z.never());
      else if ((form.required as readonly string[]).includes(field))
        shape[field] = z.nonoptional(fields[field]);
    }
    shape.callback_url = fields.callback_url;
    return { form, schema: z.strictObject(shape as Record<RequestField, z.core.$ZodType>) };
  });
}

function describeRequest(registry: z.core.$ZodRegistry<Metadata>): void {
  const fields = GenerationRequestSchema.shape;
  for (const { form, schema } of requestFormSchemas()) {
    registry.add(schema, { id: form.id, title: form.title, description: form.description });
  }
  registry.add(fields.prompt, {
    description:
      `What the video shows: ${PROMPT_MIN_LENGTH} to ${PROMPT_MAX_LENGTH} characters after trimming surrounding ` +
      "whitespace (Unicode code points); the trimmed prompt is the one used.",
    pattern: PROMPT_PATTERN,
  });
  registry.add(fields.model_type._zod.def.innerType, {
    id: "ModelType",
    description: `Model; gen-3-fast costs 1 credit, gen-3 costs 2. Default ${DEFAULT_MODEL_TYPE}.`,
    default: DEFAULT_MODEL_TYPE,
  });
  registry.add(fields.aspect_ratio._zod.def.innerType, {
    id: "AspectRatio",
    description: `Aspect ratio of the video. Default ${DEFAULT_ASPECT_RATIO}.`,
    default: DEFAULT_ASPECT_RATIO,
  });
  registry.add(fields.start_frame, {
    description: `First frame. ${IMAGE_DESCRIPTION}`,
    pattern: IMAGE_PATTERN,
  });
  registry.add(fields.end_frame, { description: `Last frame. ${IMAGE_DESCRIPTION}`, pattern: IMAGE_PATTERN });
  registry.add(fields.reference_images, {
    description: `Images the video draws on. Each item: ${IMAGE_DESCRIPTION}`,
    minItems: REFERENCE_IMAGES_MIN_COUNT,
    maxItems: REFERENCE_IMAGES_MAX_COUNT,
    items: { type: "string", pattern: IMAGE_PATTERN },
  });
  registry.add(fields.callback_url, {
    description:
      "Absolute https URL that receives the webhook when the task finishes. Its host must resolve to public " +
      "addresses only (checked at creation and at each delivery).",
    format: "uri",
    maxLength: CALLBACK_URL_MAX_LENGTH,
  });
}

/** The request body: exactly one of the three closed forms. */
function generationRequestSchema(): JsonSchema {
  return {
    description:
      "Three forms: text (prompt only), frame-to-frame (start_frame and end_frame together), reference " +
      `(reference_images, ${REFERENCE_IMAGES_MIN_COUNT} to ${REFERENCE_IMAGES_MAX_COUNT}). Frames and reference images ` +
      "never mix; model_type, aspect_ratio and callback_url fit every form. Unknown fields are refused.",
    oneOf: REQUEST_FORMS.map((form) => ({ $ref: `#/components/schemas/${form.id}` })),
  };
}

/**
 * A pattern that fixes a string of fixed length without `^` and `$`: the length bounds make it
 * exact, and generators that feed a pattern to a string generator (faker's `fromRegExp`) would
 * otherwise write the anchors into the value.
 */
const exactly = (pattern: string, length: number) => ({ pattern, minLength: length, maxLength: length });
const UUID_V4_PATTERN = exactly("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", 36);

function describeWireStrings(registry: z.core.$ZodRegistry<Metadata>): void {
  registry.add(TaskIdString, {
    format: "uuid",
    ...UUID_V4_PATTERN,
    description: "The task's id: a UUID v4, in lower case.",
  });
  registry.add(AccountIdString, {
    format: "uuid",
    ...UUID_V4_PATTERN,
    description: "The account's id: a UUID v4, in lower case.",
  });
  registry.add(WebhookEventIdString, {
    ...exactly("msg_[0-9a-f]{32}", 36),
    description: "The event's id, the webhook-id header value: msg_ and 32 hex digits.",
  });
  registry.add(RequestIdString, {
    description: "Id of the request (the X-Request-Id header): the client's own plain id, else req_<uuid>.",
  });
  // Absolute http(s) URLs only: `format: uri` alone also admits `mailto:` and `urn:`.
  registry.add(UrlString, { format: "uri", pattern: "^https?://" });
  registry.add(TimestampString, { format: "date-time", description: "ISO 8601, in UTC." });
}

function describeResponses(registry: z.core.$ZodRegistry<Metadata>): void {
  const add: AddComponent = (schema, id, description) => registry.add(schema, { id, description });
  describeWireStrings(registry);
  describeWebhookEvents(registry, add);
  add(
    CreateTaskResponseSchema,
    "CreateTaskResponse",
    "The task was created and queued; credits were charged.",
  );
  registry.add(TaskStatusResponseSchema, {
    id: "TaskStatusResponse",
    description:
      "One shape per status. video_url is absent while queued or processing, a signed URL when completed, " +
      "null when failed (message then holds the failure code). Treat any unknown status as not finished.",
    discriminator: { propertyName: "status", mapping: statusMapping() },
  });
  add(QueuedStatusResponseSchema, "QueuedStatusResponse", "Waiting in the queue.");
  // Exactly null, yet typed string-or-null: openapi-fetch's Readable<> drops a field typed `null`
  // alone, and `data.video_url` of a failed status would not compile in a client made by
  // openapi-typescript. The `const` keeps the document exact.
  registry.add(FailedStatusResponseSchema.shape.video_url, {
    type: ["string", "null"],
    const: null,
    description: "Always null: a failed task made no video.",
  });
  add(ProcessingStatusResponseSchema, "ProcessingStatusResponse", "The video is being generated.");
  add(
    CompletedStatusResponseSchema,
    "CompletedStatusResponse",
    "Finished; video_url is the signed download URL.",
  );
  add(
    FailedStatusResponseSchema,
    "FailedStatusResponse",
    `Failed; message is the failure code. ${FAILURE_CODES.map(failureCodeLine).join(" ")}`,
  );
  add(AccountResponseSchema, "AccountResponse", "The account of the calling API key.");
  add(ValidationIssueSchema, "ValidationIssue", "One violation: the field's path and what is wrong.");
  add(AuthErrorBodySchema, "AuthErrorBody", "HTTP 401 body; message is one of three exact texts.");
  add(ErrorBodySchema, "ErrorBody", "Body of every other error. 5xx bodies carry request_id.");
  add(
    CreateErrorBodySchema,
    "CreateErrorBody",
    "Error of the create endpoint: ErrorBody plus success: false.",
  );
  add(
    VideoErrorBodySchema,
    "VideoErrorBody",
    "Error of the signed video download: a bad or expired signature, a missing video, a range beyond its end.",
  );
  add(
    WebhookPayloadSchema,
    "WebhookPayload",
    "Body of the webhook POSTed to callback_url when a task finishes.",
  );
  add(
    CompletedWebhookPayloadSchema,
    "CompletedWebhookPayload",
    "The task completed; video_url is the download URL.",
  );
  add(
    FailedWebhookPayloadSchema,
    "FailedWebhookPayload",
    "The task failed or timed out; message is the failure code.",
  );
}

function statusMapping(): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const status of TASK_STATUSES) {
    mapping[status] = `#/components/schemas/${status[0]?.toUpperCase()}${status.slice(1)}StatusResponse`;
  }
  return mapping;
}

// Keeps the document readable and the contract open: response objects may gain fields (clients
// ignore them), and the long regexes zod adds for formats say nothing `format` does not.
function tidy(context: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void {
  const { jsonSchema } = context;
  const definition = context.zodSchema._zod.def as { type: string; catchall?: z.core.$ZodType };
  if (definition.type === "object" && definition.catchall?._zod.def.type !== "never") {
    delete jsonSchema.additionalProperties;
  }
  if (jsonSchema.format === "date-time") delete jsonSchema.pattern;
  if (jsonSchema.type === "integer" && jsonSchema.maximum === Number.MAX_SAFE_INTEGER)
    delete jsonSchema.maximum;
  if (jsonSchema.type === "integer" && jsonSchema.minimum === Number.MIN_SAFE_INTEGER)
    delete jsonSchema.minimum;
}

/**
 * A field a request form must leave out. JSON Schema would say `false`, but @hey-api/openapi-ts
 * drops boolean property schemas, and `{ "not": {} }` becomes `unknown` in both generators. An
 * object that allows no property yet needs one is just as unsatisfiable, and both generators turn
 * it into `Record<string, never>` (zod: `z.record(z.string(), z.never())`), which a string image
 * does not fit: a `{ prompt, start_frame }` or a frames-plus-references request fails to compile
 * and to parse.
 */
const ABSENT_FIELD: JsonSchema = {
  description:
    "The field must be left out in this request form (no value fits: an object that allows no property " +
    "yet needs one).",
  type: "object",
  additionalProperties: false,
  minProperties: 1,
};

/**
 * `video_url` of an unfinished task, which leaves it out: no value fits, since a string or null
 * matches neither schema of the `oneOf`. Typed string-or-null all the same, because
 * openapi-fetch's `Readable<>` drops a field whose type has no value but null, and `data.video_url`
 * would then not compile on a queued or processing status. The `oneOf` (two schemas, as Redocly
 * asks) is also what orval's mocks follow: they fill it with no value, so the field stays out of
 * the mock; where a status points here, `"type": ["null"]` beside the `$ref` (which adds nothing:
 * no value fits either way) leads them past the string type to it.
 */
const ABSENT_VIDEO_URL: JsonSchema = {
  description: "Absent until the task has finished: no value fits.",
  type: ["string", "null"],
  oneOf: [{ not: {} }, { not: { type: ["string", "null"] } }],
};

// zod writes `never` as `{ "not": {} }`; the document points such fields at the form above.
const ABSENT_PROPERTY = {
  input: { $ref: "#/components/schemas/AbsentField" },
  output: { $ref: "#/components/schemas/AbsentVideoUrl", type: ["null"] },
} as const;

function pointNeverPropertiesAt(schema: JsonSchema, io: keyof typeof ABSENT_PROPERTY): JsonSchema {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (!properties) return schema;
  for (const [name, property] of Object.entries(properties)) {
    if (JSON.stringify(property) !== '{"not":{}}') continue;
    if (io === "output" && name !== "video_url") throw new Error(`no absent form for the answer's ${name}`);
    properties[name] = { ...ABSENT_PROPERTY[io] };
  }
  return schema;
}

function generate(describe: (registry: z.core.$ZodRegistry<Metadata>) => void, io: "input" | "output") {
  const registry = z.registry<Metadata>();
  describe(registry);
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io,
    metadata: registry,
    uri: (id) => `#/components/schemas/${id}`,
    override: tidy,
  });
  const components: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
    components[id] = pointNeverPropertiesAt(rest, io);
  }
  return components;
}

/** Every component schema: the request as clients send it (defaults optional), responses as servers send them. */
export function buildComponentSchemas(): Record<string, JsonSchema> {
  return {
    GenerationRequest: generationRequestSchema(),
    ...generate(describeRequest, "input"),
    AbsentField: ABSENT_FIELD,
    ...generate(describeResponses, "output"),
    AbsentVideoUrl: ABSENT_VIDEO_URL,
  };
}

/** One failure code for the document: its meaning and what happens to the credits, from the catalog. */
function failureCodeLine(code: keyof typeof FAILURE_CATALOG): string {
  const { meaning, refunded } = FAILURE_CATALOG[code];
  return `${code}: ${meaning} Credits ${refunded ? "refunded" : "kept"}.`;
}
