import {
  decodeBase64,
  encodeBase64,
  isBase64,
  WEBHOOK_HEADERS,
  WEBHOOK_SECRET_PREFIX,
} from "@genvideo/schema";
import { parseWebhookPayload, type WebhookPayload } from "./responses.js";
import { WebhookVerificationError } from "./webhook-verification-error.js";

/**
 * Request headers as a `Headers` or a plain object (Node's `req.headers`; any letter case).
 *
 * @example
 * ```ts
 * await verifyWebhook(req.body, req.headers, secret); // Node: IncomingHttpHeaders
 * ```
 */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The raw body exactly as received. A parsed and re-stringified body never verifies.
 *
 * @example
 * ```ts
 * const body: WebhookBody = await request.text(); // not JSON.stringify(await request.json())
 * ```
 */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

/**
 * One signing secret (`whsec_<base64>`), or several while a secret is being rotated.
 *
 * @example
 * ```ts
 * const secrets: WebhookSecret = [process.env.WEBHOOK_SECRET!, process.env.PREVIOUS_WEBHOOK_SECRET!];
 * ```
 */
export type WebhookSecret = string | readonly string[];

/**
 * Settings of `verifyWebhook`. Times are in milliseconds.
 *
 * @example
 * ```ts
 * await verifyWebhook(request, secret, { tolerance: 60_000, expectedTaskId: order.taskId });
 * ```
 */
export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature's time and now, both ways. Default 300000 (5 minutes). */
  tolerance?: number;
  /** The current time, as a `Date` or milliseconds since the epoch. Default: `Date.now()`. */
  now?: Date | number;
  /** Rejects an authentic webhook about another task (docs/webhooks.md: a receiver should check task_id). */
  expectedTaskId?: string;
}

/**
 * Settings of `signWebhook`.
 *
 * @example
 * ```ts
 * await signWebhook({ payload: body, secret, id: "msg_1", timestamp: new Date("2026-01-01") });
 * ```
 */
export interface SignWebhookOptions {
  /** The body to sign; an object is signed as `JSON.stringify(payload)`, which is then the body to send. */
  payload: WebhookPayload | string | Uint8Array;
  /** The secret, `whsec_<base64>`. */
  secret: string;
  /** The `webhook-id`. Default: `msg_` and a random UUID. */
  id?: string;
  /** Signing time, as a `Date` or milliseconds since the epoch. Default: now. */
  timestamp?: Date | number;
}

/**
 * The headers of a signed webhook request, ready for `fetch`.
 *
 * @example
 * ```ts
 * const headers: SignedWebhookHeaders = await signWebhook({ payload: body, secret });
 * await fetch(receiverUrl, { method: "POST", headers, body });
 * ```
 */
export type SignedWebhookHeaders = {
  "content-type": "application/json";
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

const encoder = new TextEncoder();

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  // An unset environment variable arrives here as `undefined`: say so rather than fail obscurely.
  if (typeof secret !== "string") throw new TypeError("A webhook secret is required (`whsec_...`).");
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  const bytes = base64Bytes(encoded);
  // A broken secret is a deployment bug, not a bad webhook: fail loudly rather than answer 400 forever.
  if (!bytes?.length) throw new TypeError("A webhook secret must be `whsec_` followed by base64.");
  return bytes;
}

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secretBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    usage,
  ]);
}

/** The bytes Standard Webhooks signs: `id.timestamp.body`, the body untouched. */
function signedContent(id: string, timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return content;
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof value === "string" ? value : value?.join(" ");
}

function toBytes(body: WebhookBody): Uint8Array | undefined {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return undefined;
}

/** Recognises the usual receiver mistake: verifying a body that a framework parsed and re-encoded. */
function reserialisedHint(text: string): string | undefined {
  if (text.startsWith("[object ")) return "the body was an object turned into a string; pass the raw body";
  try {
    if (JSON.stringify(JSON.parse(text)) !== text) {
      return "the body is JSON but not in the compact form the service sends, so it looks re-serialised; pass the raw body, read before any JSON parsing";
    }
  } catch {
    // Not JSON at all: nothing to suggest beyond a wrong secret or a forgery.
  }
  return undefined;
}

/**
 * Verifies a webhook per Standard Webhooks on the raw body and returns its validated payload.
 * Checks the timestamp both ways against `tolerance`, accepts any of several `v1` signatures
 * under any of several secrets (rotation), and compares in constant time (`crypto.subtle.verify`).
 * Web Crypto only: it runs unchanged in Node, Bun, Deno and Cloudflare Workers.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from "@genvideo/sdk";
 *
 * // A Fetch API handler (Hono, Next.js route handler, Workers): pass the Request itself.
 * export async function POST(request: Request) {
 *   const payload = await verifyWebhook(request, process.env.GENVIDEO_WEBHOOK_SECRET!);
 *   if (payload.success) await saveVideo(payload.task_id, payload.video_url);
 *   return new Response(null, { status: 204 });
 * }
 * ```
 */
export function verifyWebhook(
  request: Request,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): Promise<WebhookPayload>;
/**
 * Verifies a webhook from its raw body and headers (for Express: `express.raw()` and `req.headers`).
 *
 * @example
 * ```ts
 * app.post("/hooks/genvideo", express.raw({ type: "application/json" }), async (req, res) => {
 *   const payload = await verifyWebhook(req.body, req.headers, [newSecret, oldSecret]);
 *   res.sendStatus(204);
 * });
 * ```
 */
export function verifyWebhook(
  body: WebhookBody | Request,
  headers: WebhookHeaders,
  secret: WebhookSecret,
  options?: VerifyWebhookOptions,
): Promise<WebhookPayload>;
export async function verifyWebhook(
  body: WebhookBody | Request,
  headersOrSecret: WebhookHeaders | WebhookSecret,
  secretOrOptions?: WebhookSecret | VerifyWebhookOptions,
  lastOptions?: VerifyWebhookOptions,
): Promise<WebhookPayload> {
  const requestForm = typeof headersOrSecret === "string" || Array.isArray(headersOrSecret);
  const headers = requestForm ? (body as Request).headers : (headersOrSecret as WebhookHeaders);
  const secrets = [(requestForm ? headersOrSecret : secretOrOptions) as WebhookSecret].flat();
  const options = ((requestForm ? secretOrOptions : lastOptions) ?? {}) as VerifyWebhookOptions;

  const id = readHeader(headers, WEBHOOK_HEADERS.id);
  const timestamp = readHeader(headers, WEBHOOK_HEADERS.timestamp);
  const signatureHeader = readHeader(headers, WEBHOOK_HEADERS.signature);
  const missing = [
    id ? "" : WEBHOOK_HEADERS.id,
    timestamp ? "" : WEBHOOK_HEADERS.timestamp,
    signatureHeader ? "" : WEBHOOK_HEADERS.signature,
  ]
    .filter(Boolean)
    .join(", ");
  if (missing || !id || !timestamp || !signatureHeader) {
    throw new WebhookVerificationError("missing_header", `Missing webhook header: ${missing}`);
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError("bad_header", "webhook-timestamp is not whole Unix seconds");
  }
  const { tolerance = 300_000, now = Date.now(), expectedTaskId } = options;
  const skew = Number(now) - Number(timestamp) * 1000;
  if (skew > tolerance)
    throw new WebhookVerificationError("too_old", `Webhook signed ${Math.round(skew / 1000)} s ago`);
  if (-skew > tolerance) {
    throw new WebhookVerificationError(
      "too_new",
      `Webhook signed ${Math.round(-skew / 1000)} s in the future`,
    );
  }

  const isRequest = typeof (body as Request).arrayBuffer === "function" && "headers" in (body as Request);
  const bytes = isRequest
    ? new Uint8Array(await (body as Request).arrayBuffer())
    : toBytes(body as WebhookBody);
  if (!bytes) {
    throw new WebhookVerificationError(
      "bad_signature",
      "The body is a parsed object, not the raw bytes that were signed",
      "pass the raw body: express.raw(), await request.text(), or the Request itself",
    );
  }
  const content = signedContent(id, timestamp, bytes);
  const signatures = signatureHeader
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => base64Bytes(entry.slice(3)))
    .filter((signature) => signature !== undefined);
  let verified = false;
  for (const secret of secrets) {
    const key = await hmacKey(secret, "verify");
    for (const signature of signatures) {
      verified ||= await crypto.subtle.verify("HMAC", key, signature, content);
    }
    if (verified) break;
  }
  const text = new TextDecoder().decode(bytes);
  if (!verified) {
    throw new WebhookVerificationError(
      "bad_signature",
      "No webhook signature matches",
      reserialisedHint(text),
    );
  }

  let parsed: ReturnType<typeof parseWebhookPayload>;
  try {
    parsed = parseWebhookPayload(JSON.parse(text));
  } catch {
    parsed = { issue: "not JSON" };
  }
  if (parsed.issue !== undefined)
    throw new WebhookVerificationError("bad_payload", `Bad webhook payload: ${parsed.issue}`);
  if (expectedTaskId !== undefined && parsed.value.task_id !== expectedTaskId) {
    throw new WebhookVerificationError(
      "unexpected_task",
      `Webhook is about task ${parsed.value.task_id}, not ${expectedTaskId}`,
    );
  }
  return parsed.value;
}

/**
 * Signs a webhook the way the service does, for tests of a receiver. Send the returned headers with
 * the payload as the body (`JSON.stringify(payload)` when it is an object).
 *
 * @example
 * ```ts
 * import { signWebhook } from "@genvideo/sdk";
 *
 * const body = JSON.stringify({ success: true, message: "done", task_id: taskId, video_url: url });
 * const headers = await signWebhook({ payload: body, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
 * const response = await app.request("/hooks/genvideo", { method: "POST", headers, body });
 * ```
 */
export async function signWebhook(options: SignWebhookOptions): Promise<SignedWebhookHeaders> {
  const { payload, secret, id = `msg_${crypto.randomUUID()}`, timestamp = Date.now() } = options;
  const body =
    typeof payload === "string" || payload instanceof Uint8Array ? payload : JSON.stringify(payload);
  const seconds = String(Math.floor(Number(timestamp) / 1000));
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const signature = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret, "sign"),
    signedContent(id, seconds, bytes),
  );
  return {
    "content-type": "application/json",
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: seconds,
    [WEBHOOK_HEADERS.signature]: `v1,${encodeBase64(new Uint8Array(signature))}`,
  };
}

/** Bytes of standard base64, or `undefined` when the text is not base64. */
function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  return isBase64(text) ? decodeBase64(text) : undefined;
}
