import {
  decodeBase64,
  isBase64,
  signedWebhookContent,
  WEBHOOK_HEADERS,
  type WebhookSecret,
  webhookSecretBytes,
} from "@genvideo/schema";
import { InvalidArgumentError } from "./invalid-argument-error.js";
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
 * Settings of `verifyWebhook`. Times are in milliseconds.
 *
 * @example
 * ```ts
 * await verifyWebhook(request, secret, { tolerance: 60_000, expectedTaskId: order.taskId });
 * ```
 */
export interface VerifyWebhookOptions {
  /**
   * Largest accepted distance between the signature's time and now, both ways. Default 300000
   * (5 minutes). A finite number, 0 or more: anything else (`NaN` from an unset variable) throws
   * `InvalidArgumentError` rather than let deliveries of any age through.
   */
  tolerance?: number;
  /**
   * The current time, as a `Date` or milliseconds since the epoch. Default: `Date.now()`. An invalid
   * `Date` or a non-finite number throws `InvalidArgumentError`.
   */
  now?: Date | number;
  /** Rejects an authentic webhook about another task (docs/webhooks.md: a receiver should check task_id). */
  expectedTaskId?: string;
}

/**
 * How many entries of `webhook-signature` are read; the rest are ignored. The service sends one per
 * live secret (two during a rotation); a sender of thousands is not the service, and reading them
 * all would let it set the receiver's work.
 */
const SIGNATURE_ENTRIES_READ = 16;
/** An HMAC-SHA256 is 32 bytes: a `v1` entry of another length cannot match and is not compared. */
const SIGNATURE_BYTES = 32;

const encoder = new TextEncoder();

async function hmacSha256(secret: string, content: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    webhookSecretBytes(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, content));
}

/** Whether `a` and `b` (of one length) are equal, in time that does not depend on where they differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}

/** The `v1` signatures among the first entries of `webhook-signature` that could be an HMAC-SHA256. */
function candidateSignatures(header: string): Uint8Array[] {
  const candidates: Uint8Array[] = [];
  for (const entry of header.split(" ", SIGNATURE_ENTRIES_READ)) {
    if (!entry.startsWith("v1,")) continue;
    const bytes = base64Bytes(entry.slice(3));
    if (bytes?.length === SIGNATURE_BYTES) candidates.push(bytes);
  }
  return candidates;
}

/** The options' times in milliseconds, or an `InvalidArgumentError` for a value that cannot be one. */
function checkedTimes(options: VerifyWebhookOptions): { tolerance: number; now: number } {
  const { tolerance = 300_000, now = Date.now() } = options;
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new InvalidArgumentError("tolerance", tolerance, "a finite number of milliseconds, 0 or more");
  }
  const nowMs = now instanceof Date ? now.getTime() : now;
  if (typeof nowMs !== "number" || !Number.isFinite(nowMs)) {
    throw new InvalidArgumentError("now", now, "a valid Date or a finite number of milliseconds");
  }
  return { tolerance, now: nowMs };
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
 * under any of several secrets (rotation), and compares in constant time. Its work is bounded
 * whatever the sender puts in the headers: one HMAC per secret over the body, and only the first
 * 16 entries of `webhook-signature` read. A non-finite `tolerance` or `now` throws
 * `InvalidArgumentError`. Web Crypto only: it runs unchanged in Node, Bun, Deno and Cloudflare Workers.
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
  // A configuration bug surfaces on the first delivery, whatever that delivery holds.
  const { tolerance, now } = checkedTimes(options);

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
  const { expectedTaskId } = options;
  const skew = now - Number(timestamp) * 1000;
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
  const content = signedWebhookContent(id, timestamp, bytes);
  const candidates = candidateSignatures(signatureHeader);
  let verified = false;
  // No candidate, no HMAC to compute: a header of junk costs nothing per secret.
  for (const secret of candidates.length > 0 ? secrets : []) {
    const expected = await hmacSha256(secret, content);
    for (const candidate of candidates) verified = constantTimeEqual(expected, candidate) || verified;
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

/** Bytes of standard base64, or `undefined` when the text is not base64. */
function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  return isBase64(text) ? decodeBase64(text) : undefined;
}
