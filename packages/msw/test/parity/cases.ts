/**
 * The parity table: request forms, rejections, terminal states, auth errors,
 * idempotency and video URLs, each a short script of HTTP steps. The same
 * script runs against the reference server and the mock, in the same order
 * (credits carry over between rows on both).
 */

import { JPEG_IMAGE, PNG_IMAGE, WEBP_IMAGE } from "@genvideo/schema/testing";
import { TEST_API_KEY } from "@genvideo/server/testing";

/** Whose key a step sends: the bootstrap key, none, the poor account's, or a literal Authorization header. */
export type Credential = "default" | "none" | "poor" | { header: string };

export type Step =
  | {
      kind: "request";
      method: "GET" | "POST";
      /** `{task}` is the task the row created last; `{video}` its video_url (path and query). */
      path: string;
      auth?: Credential;
      json?: unknown;
      /** A raw body, sent as is. */
      raw?: string;
      contentType?: string | null;
      idempotencyKey?: string;
    }
  /** Lets the last created task reach a terminal state, then reads its status. */
  | { kind: "finish" };

export interface ParityCase {
  name: string;
  steps: Step[];
}

const post = (json: unknown, extra: Partial<Extract<Step, { kind: "request" }>> = {}): Step => ({
  kind: "request",
  method: "POST",
  path: "/api/gen/generate",
  json,
  ...extra,
});
const get = (path: string, auth: Credential = "default"): Step => ({
  kind: "request",
  method: "GET",
  path,
  auth,
});
const finish: Step = { kind: "finish" };
const account = get("/api/gen/account");
const UNKNOWN_TASK = "/api/gen/status/00000000-0000-4000-8000-000000000000";
const PUBLIC_CALLBACK = "https://93.184.215.14/hooks/genvideo";

const authRow = (name: string, auth: Credential): ParityCase => ({
  name: `auth: ${name}`,
  steps: [get(UNKNOWN_TASK, auth), get("/api/gen/account", auth), post({ prompt: "x" }, { auth })],
});

const rejected = (name: string, body: unknown): ParityCase => ({
  name: `rejects ${name}`,
  steps: [post(body)],
});

export const PARITY_CASES: ParityCase[] = [
  authRow("no Authorization header", "none"),
  authRow("an empty Authorization header", { header: "" }),
  authRow("another scheme", { header: "Basic dGVzdDp0ZXN0" }),
  authRow("Bearer without a key", { header: "Bearer" }),
  authRow("a bare key", { header: TEST_API_KEY }),
  authRow("an unknown key", { header: "Bearer gen_sk_0123456789abcdefghijABCDEFGHIJ0123456789" }),
  authRow("a key of the wrong shape", { header: "Bearer not-a-key" }),
  {
    name: "auth: a key in the query string",
    steps: [get(`/api/gen/account?api_key=${TEST_API_KEY}`, "none")],
  },
  { name: "auth: checked before routing", steps: [get("/api/gen/nothing-here", "none")] },
  {
    name: "unknown route",
    steps: [
      get("/api/gen/nothing-here"),
      { kind: "request", method: "POST", path: "/api/gen/status/x", json: {} },
    ],
  },

  { name: "form: text only", steps: [post({ prompt: "a lighthouse at dusk" }), finish, account] },
  {
    name: "form: text, gen-3, 9:16",
    steps: [post({ prompt: "a tall waterfall", model_type: "gen-3", aspect_ratio: "9:16" }), finish, account],
  },
  {
    name: "form: text, 1:1, callback",
    steps: [post({ prompt: "a square", aspect_ratio: "1:1", callback_url: PUBLIC_CALLBACK }), finish],
  },
  {
    name: "form: frame-to-frame",
    steps: [
      post({
        prompt: "from red to blue",
        model_type: "gen-3-fast",
        start_frame: JPEG_IMAGE,
        end_frame: JPEG_IMAGE,
        aspect_ratio: "16:9",
      }),
      finish,
    ],
  },
  {
    name: "form: one reference image",
    steps: [post({ prompt: "like this", model_type: "gen-3-fast", reference_images: [PNG_IMAGE] }), finish],
  },
  {
    name: "form: four reference images",
    steps: [
      post({ prompt: "like these", reference_images: [PNG_IMAGE, JPEG_IMAGE, WEBP_IMAGE, PNG_IMAGE] }),
      finish,
      account,
    ],
  },

  { name: "rejects bad JSON", steps: [post(undefined, { raw: "{not json" })] },
  {
    name: "rejects a text/plain body",
    steps: [post(undefined, { raw: '{"prompt":"x"}', contentType: "text/plain" })],
  },
  {
    name: "rejects a POST without Content-Type",
    steps: [post(undefined, { raw: '{"prompt":"x"}', contentType: null })],
  },
  rejected("an unknown field", { prompt: "x", duration: 5 }),
  rejected("a missing prompt", { model_type: "gen-3" }),
  rejected("a blank prompt", { prompt: "   " }),
  rejected("a 2001-character prompt", { prompt: "a".repeat(2001) }),
  rejected("an unknown model", { prompt: "x", model_type: "gen-4" }),
  rejected("an unknown aspect ratio", { prompt: "x", aspect_ratio: "4:3" }),
  rejected("a start frame alone", { prompt: "x", start_frame: JPEG_IMAGE }),
  rejected("frames with reference images", {
    prompt: "x",
    start_frame: JPEG_IMAGE,
    end_frame: JPEG_IMAGE,
    reference_images: [PNG_IMAGE],
  }),
  rejected("no reference images", { prompt: "x", reference_images: [] }),
  rejected("five reference images", {
    prompt: "x",
    reference_images: [PNG_IMAGE, PNG_IMAGE, PNG_IMAGE, PNG_IMAGE, PNG_IMAGE],
  }),
  rejected("an image that is not a data URI", {
    prompt: "x",
    reference_images: ["https://example.com/a.png"],
  }),
  rejected("PNG bytes declared as JPEG", {
    prompt: "x",
    reference_images: [PNG_IMAGE.replace("image/png", "image/jpeg")],
  }),
  rejected("a JSON array", [{ prompt: "x" }]),
  rejected("JSON null", null),
  rejected("a wrong field type", { prompt: 42 }),
  rejected("an http callback", { prompt: "x", callback_url: "http://93.184.215.14/hook" }),
  rejected("a callback that is no URL", { prompt: "x", callback_url: "not a url" }),
  rejected("a callback with credentials", {
    prompt: "x",
    callback_url: "https://user:pw@93.184.215.14/hook",
  }),
  rejected("a loopback callback", { prompt: "x", callback_url: "https://127.0.0.1/hook" }),
  rejected("a private callback", { prompt: "x", callback_url: "https://10.1.2.3/hook" }),
  rejected("a localhost callback", { prompt: "x", callback_url: "https://localhost/hook" }),
  { name: "status: an id that is no UUID", steps: [get("/api/gen/status/not-a-uuid")] },
  { name: "status: an unknown task", steps: [get(UNKNOWN_TASK)] },

  {
    name: "ends: [[fail:UNSAFE_CONTENT]], no refund",
    steps: [post({ prompt: "a cat [[fail:UNSAFE_CONTENT]]" }), finish, account],
  },
  {
    name: "ends: [[fail:GENERATION_FAILED]], refunded",
    steps: [post({ prompt: "a dog [[fail:GENERATION_FAILED]]", model_type: "gen-3" }), finish, account],
  },
  {
    name: "ends: [[timeout]] at the deadline, refunded",
    steps: [post({ prompt: "forever [[timeout]]" }), finish, account],
  },
  { name: "ends: [[delay:90s]] completes", steps: [post({ prompt: "slow [[delay:90s]]" }), finish] },

  {
    name: "idempotency: a repeat gets the first answer",
    steps: [
      post({ prompt: "once" }, { idempotencyKey: "order-1" }),
      post({ prompt: "once" }, { idempotencyKey: "order-1" }),
      account,
    ],
  },
  {
    name: "idempotency: another body with the same key is refused",
    steps: [
      post({ prompt: "first" }, { idempotencyKey: "order-2" }),
      post({ prompt: "second" }, { idempotencyKey: "order-2" }),
    ],
  },
  {
    name: "idempotency: a refusal is replayed too",
    steps: [
      post({ prompt: "" }, { idempotencyKey: "order-3" }),
      post({ prompt: "" }, { idempotencyKey: "order-3" }),
    ],
  },
  {
    name: "idempotency: a key over 255 characters",
    steps: [post({ prompt: "x" }, { idempotencyKey: "k".repeat(256) })],
  },
  {
    name: "credits: too few for the model",
    steps: [
      post({ prompt: "pricey", model_type: "gen-3" }, { auth: "poor" }),
      post({ prompt: "cheap" }, { auth: "poor" }),
      get("/api/gen/account", "poor"),
    ],
  },
  {
    name: "isolation: another account's task is not found",
    steps: [post({ prompt: "mine" }), get("/api/gen/status/{task}", "poor")],
  },
  {
    name: "video: signed URL works without a key; a bad signature is refused",
    steps: [
      post({ prompt: "watch me" }),
      finish,
      { kind: "request", method: "GET", path: "{video}", auth: "none" },
      { kind: "request", method: "GET", path: "{video-bad-signature}", auth: "none" },
      { kind: "request", method: "GET", path: "{video-unsigned}", auth: "none" },
    ],
  },
  {
    name: "webhooks: a task without callback has none",
    steps: [post({ prompt: "quiet" }), get("/api/gen/tasks/{task}/webhooks")],
  },
];
