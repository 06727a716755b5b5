import { REFERENCE_IMAGES_MAX_COUNT, REQUEST_BODY_MAX_VALUES } from "@genvideo/schema";
import { ApiError } from "./api-error.js";
import { LARGE_BODY_BYTES, nextEventLoopTurn } from "./event-loop-turn.js";
import { holdsMoreJsonValuesThan } from "./json-value-count.js";

/**
 * 499, nginx's "Client Closed Request": the status a request the client gave
 * up on is logged with. Nobody receives it; it keeps such requests out of the 5xx.
 */
export const CLIENT_CLOSED_REQUEST = 499;

const CLIENT_ABORTED = Symbol.for("genvideo.ClientAbortedError");

/**
 * The client stopped sending the body before it was whole: it closed the
 * connection short of its Content-Length, or broke the chunked framing and
 * the embedder's HTTP server dropped the connection. Not a fault of the server: answered with
 * `CLIENT_CLOSED_REQUEST` and logged as such, never as an error.
 */
export class ClientAbortedError extends Error {
  override name = "ClientAbortedError";
  readonly clientAborted: true = true;

  constructor(cause: unknown) {
    super("the client closed the connection before the request body was whole", { cause });
    // A symbol brand instead of instanceof: it survives duplicate copies of this package.
    Object.defineProperty(this, CLIENT_ABORTED, { value: true });
  }

  /** True for a ClientAbortedError from any copy of this package. */
  static isInstance(value: unknown): value is ClientAbortedError {
    return typeof value === "object" && value !== null && CLIENT_ABORTED in value;
  }
}

function clientAborted(cause: unknown): never {
  throw new ClientAbortedError(cause);
}

const JSON_MEDIA_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * Reads a POST body as JSON, refusing in the contract's order: not
 * `application/json` (415), larger than `maxBytes` (413, told by
 * Content-Length before anything is read, or by counting while streaming),
 * more than `REQUEST_BODY_MAX_VALUES` values in its arrays and objects (400,
 * counted before parsing), not UTF-8 or not JSON (400). The limit is enforced
 * on the bytes received, whatever the header claims. A body the client never
 * finished sending is a `ClientAbortedError`. A large body is read in passes with the event loop
 * let in between ({@link LARGE_BODY_BYTES}); `large` tells the caller to go on that way.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
): Promise<{ value: unknown; large: boolean }> {
  const contentType = request.headers.get("content-type");
  if (contentType === null || !JSON_MEDIA_TYPE.test(contentType.trim()))
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json.");
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readLimited(request, maxBytes, declared);
  const large = bytes.byteLength >= LARGE_BODY_BYTES;
  if (holdsMoreJsonValuesThan(bytes, REQUEST_BODY_MAX_VALUES))
    throw new ApiError(
      "INVALID_REQUEST",
      `The request body holds more than ${REQUEST_BODY_MAX_VALUES} values in arrays and objects; a create request has a few fields and at most ${REFERENCE_IMAGES_MAX_COUNT} reference images.`,
    );
  if (large) await nextEventLoopTurn();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("INVALID_REQUEST", "The request body is not valid UTF-8.");
  }
  if (large) await nextEventLoopTurn();
  try {
    return { value: JSON.parse(text), large };
  } catch (error) {
    const detail = error instanceof SyntaxError ? ` (${error.message})` : "";
    throw new ApiError("INVALID_REQUEST", `The request body is not valid JSON${detail}.`);
  }
}

async function readLimited(request: Request, maxBytes: number, declared: string | null): Promise<Uint8Array> {
  const length = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
  // With a Content-Length within the limit, HTTP framing ends the body there: a small body is read
  // whole, which an embedder can do without a stream (@hono/node-server reads the socket
  // directly; the stream costs about a tenth of a create). The count is still checked. A large
  // one is copied into place chunk by chunk as it arrives: read whole, it was gathered and copied
  // in one go at its end (a few hundred ms at the limit) while every other request waited.
  if (length !== undefined && length < LARGE_BODY_BYTES) {
    const bytes = new Uint8Array(await request.arrayBuffer().catch(clientAborted));
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  // A body of unknown length (chunked) starts in 64 KiB, doubled as it grows.
  let bytes = new Uint8Array(length ?? 64 * 1024);
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(clientAborted);
    if (done) break;
    const end = total + value.byteLength;
    if (end > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    if (end > bytes.length) bytes = grown(bytes, total, Math.min(maxBytes, Math.max(end, 2 * bytes.length)));
    bytes.set(value, total);
    total = end;
  }
  return bytes.subarray(0, total);
}

/** `bytes`' first `used` bytes in a new array of `size`. */
function grown(bytes: Uint8Array, used: number, size: number): Uint8Array<ArrayBuffer> {
  const larger = new Uint8Array(size);
  larger.set(bytes.subarray(0, used));
  return larger;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    "PAYLOAD_TOO_LARGE",
    `The request body is larger than ${maxBytes >= 1024 * 1024 ? `${Math.floor(maxBytes / (1024 * 1024))} MiB` : `${maxBytes} bytes`}.`,
  );
}
