/**
 * One request of a conformance check and the answer it got, kept as the report shows them: the
 * request with the API key masked, the answer's status, headers and the start of its body.
 */

/** A request as the report shows it (the caller's API key is never in it). */
export interface ConformanceRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body sent, when there was one. */
  body?: string;
}

/** An answer as the report shows it. */
export interface ConformanceAnswer {
  status: number;
  /** Every header, names in lower case. */
  headers: Record<string, string>;
  /** The first 2000 characters of the body (a video's first bytes are not text: a HEX excerpt). */
  body: string;
  durationMs: number;
}

/** A request and its answer, with the body parsed when it is JSON. */
export interface Exchange {
  request: ConformanceRequest;
  answer: ConformanceAnswer;
  /** The whole body, for binary checks (a video's first bytes). */
  bytes: Uint8Array;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
}

/** The deployment did not answer (refused, reset, DNS, TLS): no status to grade. */
export class NoAnswerError extends Error {
  override name = "NoAnswerError";
  readonly request: ConformanceRequest;
  constructor(request: ConformanceRequest, cause: unknown) {
    super(`${request.method} ${request.url}: no answer (${describe(cause)})`, { cause });
    this.request = request;
  }
}

const excerptLength = 2000;

export interface SendOptions {
  headers?: Record<string, string>;
  body?: string;
  /** How the Authorization header shows in the report when it carries the caller's key. */
  maskedAuthorization?: string;
}

export async function send(
  fetchImpl: (request: Request) => Promise<Response>,
  clock: () => number,
  method: string,
  url: string,
  options: SendOptions = {},
): Promise<Exchange> {
  const headers = options.headers ?? {};
  const shown = { ...headers };
  if (options.maskedAuthorization !== undefined) shown.authorization = options.maskedAuthorization;
  const request: ConformanceRequest = {
    method,
    url,
    headers: shown,
    ...(options.body !== undefined ? { body: excerpt(options.body) } : {}),
  };
  const started = clock();
  let response: Response;
  let bytes: Uint8Array;
  try {
    response = await fetchImpl(
      new Request(url, {
        method,
        headers,
        redirect: "manual",
        ...(options.body !== undefined ? { body: options.body } : {}),
      }),
    );
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new NoAnswerError(request, error);
  }
  const answerHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    answerHeaders[name.toLowerCase()] = value;
  });
  const type = answerHeaders["content-type"] ?? "";
  const text = type.startsWith("video/") ? hexExcerpt(bytes) : new TextDecoder().decode(bytes);
  let json: unknown;
  if (/json/i.test(type) || text.startsWith("{")) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return {
    request,
    answer: {
      status: response.status,
      headers: answerHeaders,
      body: excerpt(text),
      durationMs: Math.round(clock() - started),
    },
    bytes,
    json,
  };
}

function excerpt(text: string): string {
  return text.length > excerptLength ? `${text.slice(0, excerptLength)}…` : text;
}

function hexExcerpt(bytes: Uint8Array): string {
  const shown = [...bytes.subarray(0, 32)].map((byte) => byte.toString(16).padStart(2, "0")).join(" ");
  return `(${bytes.length} bytes of video) ${shown}${bytes.length > 32 ? " …" : ""}`;
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: unknown }).cause;
  const code = inner && typeof inner === "object" && "code" in inner ? ` ${String(inner.code)}` : "";
  return `${cause.message}${code}`;
}
