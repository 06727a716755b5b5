import { IDEMPOTENCY_KEY_HEADER, RATE_LIMIT_HEADERS } from "@genvideo/schema";
import ky, { isHTTPError, isNetworkError, isTimeoutError, type Options } from "ky";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  HttpError,
  type HttpErrorDetails,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitError,
  ServerError,
} from "./http-errors.js";
import { ConnectionError, RequestTimeoutError, ResponseValidationError } from "./request-errors.js";
import { readErrorBody } from "./responses.js";

/**
 * Statuses worth another attempt: the service may answer differently a moment later. Any other 5xx
 * is retried too (see `shouldRetry`); the list stays short because ky copies it on every call.
 */
const retryStatusCodes: number[] = [408, 409, 429, 500, 502, 503, 504];
/** A `Retry-After` longer than this is shortened to it, so one call never sleeps for long. */
export const maxRetryAfter = 60_000;
/**
 * Lower case, as the names of the client's headers are: ky merges plain header objects by key, so
 * a differently cased name would be sent as a second value instead of replacing the client's.
 */
const idempotencyKeyName = IDEMPOTENCY_KEY_HEADER.toLowerCase();
/** ky rejects timers beyond this (the largest 32-bit signed delay). */
const maxTimeout = 2_147_483_647;

/**
 * Error codes that prove a connection never opened, so no byte of the request reached the service.
 * Node (undici) and Bun report them; a runtime that does not is treated as "maybe sent".
 */
const neverSentCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "ConnectionRefused",
]);

/** Whether the error's cause chain proves the request never left this process. */
function isProvablyUnsent(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 6 && typeof cause === "object" && cause !== null; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && neverSentCodes.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** `Retry-After` in milliseconds (delay seconds or an HTTP date), `undefined` when absent or unreadable. */
export function readRetryAfter(headers: Headers): number | undefined {
  const value = headers.get(RATE_LIMIT_HEADERS.retryAfter)?.trim();
  if (!value) return undefined;
  const milliseconds = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isNaN(milliseconds) ? undefined : Math.max(0, milliseconds);
}

/** How the client reaches the service; fixed when the client is constructed. */
export interface TransportSettings {
  baseUrl: string;
  apiKey: string;
  timeout: number;
  maxRetries: number;
  fetch: typeof globalThis.fetch | undefined;
  headers: HeadersInit | undefined;
}

/** One call to the service. */
export interface Call {
  method: "GET" | "POST";
  path: string;
  json?: unknown;
  /** Sent as `Idempotency-Key`; a POST without one is only retried when it provably never left. */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  timeout?: number | undefined;
}

/** A 2xx answer: the parsed JSON body and what is needed to report on it. */
export interface CallResult {
  data: unknown;
  headers: Headers;
  requestId: string | undefined;
}

/** Sends calls through ky with the retry policy of the SDK and maps every failure to an SDK error. */
export type Transport = (call: Call) => Promise<CallResult>;

/** The request id a response carries, in its headers or (for 5xx) its body. */
function readRequestId(headers: Headers, body?: unknown): string | undefined {
  return headers.get("x-request-id") ?? readErrorBody(body).request_id;
}

/**
 * Builds a transport. Retries use capped exponential backoff with jitter (0.5 s doubling to 8 s,
 * each wait drawn from its upper half) and honour `Retry-After` on every retried status, capped.
 */
export function createTransport(settings: TransportSettings): Transport {
  const customFetch = settings.fetch;
  const authorization = `Bearer ${settings.apiKey}`;
  // The caller's headers, if any, as a plain object (cheaper for ky to merge than `Headers`); the
  // client's own two are set by `fetch` below, so they win over the caller's as they always did.
  const headers: Record<string, string> = {};
  let hasHeaders = false;
  new Headers(settings.headers).forEach((value, name) => {
    // ky drops a header whose value is the string "undefined" when given a `Headers`, as this was.
    if (value === "undefined" || name === "authorization" || name === "accept") return;
    headers[name] = value;
    hasHeaders = true;
  });
  const defaultBudget = Math.min(settings.timeout, maxTimeout);
  // Everything that is the same on every call is set here once: ky merges per-call options into
  // these on each call, and the fewer keys a call passes the less that merge costs.
  const http = ky.create({
    ...(hasHeaders ? { headers } : {}),
    // One budget for the whole call: an attempt may use all of it, retries only what is left.
    timeout: defaultBudget,
    totalTimeout: defaultBudget,
    fetch: async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      // ky passes each attempt's Request. The key and `accept` are set on it here rather than as
      // ky's `headers`, which ky would copy through three `Headers` objects on every call.
      const request = input instanceof Request ? input : new Request(input, init);
      request.headers.set("authorization", authorization);
      request.headers.set("accept", "application/json");
      if (request !== input) init = undefined;
      // Called as a plain function: ky would call it as a method of its options, which a browser's
      // unbound `window.fetch` rejects as an illegal invocation. The global one is looked up on each
      // call, so that a fetch patched in after the client was made (a mock, a tracer) is used.
      const response = await (customFetch ? customFetch(request, init) : globalThis.fetch(request, init));
      // A 2xx body is read here, inside the attempt ky times, so ky's one timer per attempt bounds
      // the headers and the body alike. Error bodies are left to ky, which reads them itself.
      if (response.ok) {
        bodies.set(response, await readBody(response, customFetch && request.signal));
      }
      return response;
    },
    retry: {
      limit: settings.maxRetries,
      // POST is listed so keyed creates retry; `shouldRetry` below vetoes the unkeyed ones.
      methods: ["get", "post"],
      statusCodes: retryStatusCodes,
      afterStatusCodes: retryStatusCodes,
      maxRetryAfter,
      // Jitter and the 8 s cap folded into `delay`, which gives the same waits as ky's `jitter`
      // and `backoffLimit` options would: ky normalizes the retry options twice per call, so
      // each key costs on every call.
      delay: (attempt) => Math.min(8000, 500 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2)),
      shouldRetry,
    },
  });
  // Request paths are resolved here rather than by ky's `baseUrl`, which builds a `Request` and a
  // `URL` on every call to do it. Resolving a relative path against the base is the same as
  // appending it to the base's directory, which is computed once (on first use, so that a base
  // ky would refuse still fails each call as before).
  let root: string | undefined;

  return async ({ method, path, json, idempotencyKey, signal, timeout }) => {
    root ??= new URL(".", new Request(settings.baseUrl).url).href;
    const budget = timeout === undefined ? defaultBudget : Math.min(timeout, maxTimeout);
    const deadline = Date.now() + budget;
    // Only what differs from the defaults above, since ky deep-merges every key on every call.
    const options: Options = { context: { deadline } };
    if (method !== "GET") options.method = method;
    if (budget !== defaultBudget) {
      options.timeout = budget;
      options.totalTimeout = budget;
    }
    if (json !== undefined) options.json = json;
    if (signal) options.signal = signal;
    if (idempotencyKey) options.headers = { [idempotencyKeyName]: idempotencyKey };
    const pending = http(root + path, options);
    let response: Response;
    let text: string;
    try {
      response = await pending;
      const body = bodies.get(response) ?? (await readBody(response));
      if (typeof body !== "string") throw body.failure;
      text = body;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw toGenVideoError(error, budget);
    }
    const requestId = readRequestId(response.headers);
    try {
      return { data: JSON.parse(text), headers: response.headers, requestId };
    } catch (error) {
      throw new ResponseValidationError("the body is not JSON", text, { cause: error, requestId });
    }
  };
}

/** A body read that failed, kept to be thrown by the call rather than by ky's fetch. */
interface BodyFailure {
  failure: unknown;
}

/** Bodies of 2xx responses, read in ky's fetch and picked up by the call that made it. */
const bodies = new WeakMap<Response, string | BodyFailure>();

/**
 * Reads a body as text; a failure is returned, not thrown, so that ky neither retries it nor
 * reports it as its own (it goes to the caller as before). `fetch` ends a body read when the
 * request's signal aborts (a timeout or the caller); a custom `fetch` may not tie its body to the
 * signal, so for one the read also ends when `signal` aborts.
 */
function readBody(response: Response, signal?: AbortSignal | undefined): Promise<string | BodyFailure> {
  const read = response.text().then(
    (text) => text,
    (failure: unknown) => ({ failure }),
  );
  if (!signal) return read;
  return new Promise((resolve) => {
    const onAbort = () => resolve({ failure: signal.reason });
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    read.then((body) => {
      signal.removeEventListener("abort", onAbort);
      resolve(body);
    });
  });
}

/** What `shouldRetry` needs to know about the call, passed through ky's `context` option. */
interface CallContext {
  deadline: number;
}

/**
 * The SDK's retry rules on top of ky's defaults (`undefined` lets ky decide, `false` vetoes):
 * a POST without an idempotency key is retried only when it provably never left; a wait that would
 * outlast the call's deadline is skipped so the service's answer is reported at once; every 5xx
 * is retried, not only those listed.
 */
function shouldRetry({ error }: { error: Error }): boolean | undefined {
  const request = (error as { request?: Request }).request;
  if (request?.method === "POST" && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
    return isNetworkError(error) && isProvablyUnsent(error) ? undefined : false;
  }
  if (!isHTTPError(error)) return undefined;
  const { deadline } = (error.options.context ?? {}) as Partial<CallContext>;
  const wait = readRetryAfter(error.response.headers);
  if (deadline && wait !== undefined && Math.min(wait, maxRetryAfter) >= deadline - Date.now()) return false;
  const { status } = error.response;
  return status >= 500 && !retryStatusCodes.includes(status) ? true : undefined;
}

/** Maps ky's errors to the SDK's; anything else (a bug, a caller's fetch throwing) passes through. */
function toGenVideoError(error: unknown, timeout: number): unknown {
  if (isHTTPError(error)) return httpErrorFrom(error.response.status, error.response.headers, error.data);
  if (isTimeoutError(error)) return new RequestTimeoutError(timeout, { cause: error });
  if (isNetworkError(error)) {
    const reason = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return new ConnectionError(`Could not reach ${new URL(error.request.url).origin}${reason}`, {
      cause: error.cause ?? error,
    });
  }
  return error;
}

/** Picks the error class by HTTP status; the service's code decides where the status is ambiguous (422). */
function httpErrorFrom(status: number, headers: Headers, data: unknown): HttpError {
  const body = readErrorBody(data);
  const details: HttpErrorDetails = { status, headers, body, requestId: readRequestId(headers, data) };
  if (status === 401) return new AuthenticationError(details);
  if (status === 402) return new InsufficientCreditsError(details);
  if (status === 404) return new NotFoundError(details);
  if (status === 409 || body.code === "IDEMPOTENCY_KEY_REUSED") return new ConflictError(details);
  if (status === 429) return new RateLimitError({ ...details, retryAfter: readRetryAfter(headers) });
  if (status >= 500) return new ServerError({ ...details, retryAfter: readRetryAfter(headers) });
  if (status === 400 || status === 413 || status === 415 || status === 422)
    return new BadRequestError(details);
  return new HttpError(details);
}
