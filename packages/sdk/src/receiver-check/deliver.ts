import { WEBHOOK_ATTEMPT_TIMEOUT_MS, WEBHOOK_RESPONSE_MAX_BYTES } from "@genvideo/schema";

/**
 * A webhook receiver to check: its URL, or a fetch-style handler (a Hono app's `fetch`, a Next.js
 * route handler) called in process, without a network.
 *
 * @example
 * ```ts
 * const target: WebhookReceiverTarget = (request) => app.fetch(request);
 * ```
 */
export type WebhookReceiverTarget = string | URL | ((request: Request) => Response | Promise<Response>);

/** How a receiver answered one delivery of the check. */
export interface WebhookCheckAnswer {
  /** The HTTP status, or `null` when there was none (timeout, network error, handler threw). */
  status: number | null;
  /** The `Location` of a redirect. */
  location?: string;
  /** Why there was no status: `timeout`, a network error (`ECONNREFUSED`), or `the handler threw: ...`. */
  error?: string;
  /** Time from sending the request to the end of the answer's body, in milliseconds. */
  durationMs: number;
  /** The first 200 characters of the answer's body, when it had one. */
  excerpt?: string;
}

/** What a delivery needs beyond its request: where it goes and how its time is measured. */
export interface DeliveryChannel {
  target: WebhookReceiverTarget;
  /** The URL a handler target sees in its `Request`. */
  handlerUrl: string;
  fetch: (request: Request) => Promise<Response>;
  clock: () => number;
}

const excerptLength = 200;

/**
 * Sends one delivery as the service would (POST, no redirect followed, the attempt ended after 30 s)
 * and records the answer. Never throws: every way a receiver can fail is an answer to grade.
 */
export async function deliver(
  channel: DeliveryChannel,
  init: { headers: Record<string, string>; body: string },
): Promise<WebhookCheckAnswer> {
  const isHandler = typeof channel.target === "function";
  const url = isHandler ? channel.handlerUrl : String(channel.target);
  const abort = new AbortController();
  const request = new Request(url, {
    method: "POST",
    headers: init.headers,
    body: init.body,
    redirect: "manual",
    signal: abort.signal,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve("timeout");
    }, WEBHOOK_ATTEMPT_TIMEOUT_MS);
  });
  const started = channel.clock();
  const elapsed = () => Math.round(channel.clock() - started);
  try {
    const answer = await Promise.race([answerOf(channel, request), timedOut]);
    if (answer === "timeout") return { status: null, error: "timeout", durationMs: elapsed() };
    const durationMs = elapsed();
    // A clock that a test drives can pass the attempt's end without a real timer firing.
    if (durationMs > WEBHOOK_ATTEMPT_TIMEOUT_MS) return { status: null, error: "timeout", durationMs };
    return { ...answer, durationMs };
  } catch (error) {
    const reason = describeError(error);
    return {
      status: null,
      error: isHandler ? `the handler threw: ${reason}` : reason,
      durationMs: elapsed(),
    };
  } finally {
    clearTimeout(timer);
  }
}

async function answerOf(
  channel: DeliveryChannel,
  request: Request,
): Promise<Omit<WebhookCheckAnswer, "durationMs">> {
  const response =
    typeof channel.target === "function" ? await channel.target(request) : await channel.fetch(request);
  const excerpt = await readExcerpt(response);
  const location = response.headers.get("location") ?? undefined;
  return {
    status: response.status,
    ...(location !== undefined && response.status >= 300 && response.status < 400 ? { location } : {}),
    ...(excerpt ? { excerpt } : {}),
  };
}

/** Reads what the service would (at most 64 KiB) and keeps the start of it for the report. */
async function readExcerpt(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (length < WEBHOOK_RESPONSE_MAX_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  await reader.cancel().catch(() => {});
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes).trim().slice(0, excerptLength);
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return `threw ${String(error)}`;
  // fetch wraps the network error: its cause says what happened (ECONNREFUSED, ...).
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
