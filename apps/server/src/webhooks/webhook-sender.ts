/**
 * The server's `WebhookSender`: one POST per attempt on undici, with the
 * rules of docs/webhooks.md#delivery-and-retries and #which-callback-urls-are-accepted:
 * connect within 10 s, the whole attempt within 30 s, no redirects, at most
 * 64 KiB of the response read, and only public unicast targets, checked at
 * connection time on the very address connected to.
 *
 * One undici Agent serves every target. Connections are kept alive briefly
 * and reused only for the same origin; that is safe across accounts because a
 * pooled socket is already connected to an address the policy accepted.
 */
import type {
  WebhookAttemptOutcome,
  WebhookDelivery,
  WebhookFailureKind,
  WebhookSender,
} from "@genvideo/engine";
import {
  WEBHOOK_ATTEMPT_TIMEOUT_MS,
  WEBHOOK_CONNECT_TIMEOUT_MS,
  WEBHOOK_RESPONSE_MAX_BYTES,
} from "@genvideo/schema";
import { Agent, DecoratorHandler, type Dispatcher } from "undici";
import { type AttemptSlots, createAttemptSlots } from "./attempt-slots.js";
import { parseCallbackUrl } from "./callback-url.js";
import { deliveryFailureKind, describeDeliveryError } from "./delivery-error.js";
import { createGuardedConnector } from "./guarded-connector.js";
import { type ResolveHost, resolveWithSystemDns } from "./host-resolver.js";

export interface WebhookSenderOptions {
  /** `GENVIDEO_ALLOW_INSECURE_CALLBACKS=1`: allow `http:` and loopback or private targets. */
  allowInsecure: boolean;
  /** DNS + TCP + TLS must finish within this (default 10 s). Network time: not scaled by GENVIDEO_TIME_SCALE. */
  connectTimeoutMs?: number;
  /** The whole attempt (connect, request, response headers and body) must finish within this (default 30 s). */
  attemptTimeoutMs?: number;
  /** Response bytes read (default 64 KiB) before the connection is dropped; the status code alone decides the outcome. */
  maxResponseBytes?: number;
  /** Leading response bytes kept as the attempt's text excerpt (default 1 KiB). */
  responseExcerptBytes?: number;
  /** Attempts in flight at once; unlimited when absent. */
  maxConcurrency?: number;
  /** Open connections per origin. */
  maxConnectionsPerOrigin?: number;
  /** Name resolution; the system resolver by default. Tests inject one to simulate DNS rebinding. */
  resolve?: ResolveHost;
  /** PEM certificates trusted instead of the system's roots; for tests and private deployments. */
  trustedCertificates?: readonly string[];
}

export interface ClosableWebhookSender extends WebhookSender {
  /** Closes idle connections and waits for attempts in flight; call on shutdown. */
  close(): Promise<void>;
}

const userAgent = "genvideo-webhooks/1";

/** How much of a receiver's answer an attempt records for the delivery log. */
export const WEBHOOK_RESPONSE_EXCERPT_BYTES = 1024;

/**
 * @example
 * const sender = createWebhookSender({ allowInsecure: config.allowInsecureCallbacks });
 * const outcome = await sender.send(delivery, AbortSignal.timeout(60_000));
 * // { ok: false, statusCode: 302, error: "redirect not followed (302)", durationMs: 41 }
 * await sender.close();
 */
export function createWebhookSender(options: WebhookSenderOptions): ClosableWebhookSender {
  const connectTimeoutMs = options.connectTimeoutMs ?? WEBHOOK_CONNECT_TIMEOUT_MS;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? WEBHOOK_RESPONSE_MAX_BYTES;
  const excerptBytes = Math.min(
    options.responseExcerptBytes ?? WEBHOOK_RESPONSE_EXCERPT_BYTES,
    maxResponseBytes,
  );
  const slots: AttemptSlots | undefined =
    options.maxConcurrency === undefined ? undefined : createAttemptSlots(options.maxConcurrency);
  const agent = new Agent({
    connect: createGuardedConnector({
      allowInsecure: options.allowInsecure,
      resolve: options.resolve ?? resolveWithSystemDns,
      connectTimeoutMs,
      trustedCertificates: options.trustedCertificates,
    }),
    connections: options.maxConnectionsPerOrigin ?? 8,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 10_000,
    // Backstops only: the attempt deadline below is what ends an attempt.
    headersTimeout: attemptTimeoutMs,
    bodyTimeout: attemptTimeoutMs,
  });

  async function attempt(delivery: WebhookDelivery, signal: AbortSignal): Promise<WebhookAttemptOutcome> {
    const startedAt = performance.now();
    const elapsed = (): number => Math.round(performance.now() - startedAt);
    let statusCode: number | null = null;
    let responseExcerpt: string | undefined;
    const failure = (error: string, kind?: WebhookFailureKind): WebhookAttemptOutcome => ({
      ok: false,
      statusCode,
      error,
      durationMs: elapsed(),
      ...(responseExcerpt ? { responseExcerpt } : {}),
      ...(kind ? { failure: kind } : {}),
    });

    // Form only here: the address policy is the connector's, applied to the address actually connected to.
    const target = parseCallbackUrl(delivery.url, true);
    if (!target.ok) return failure(`refused url: ${target.reason}`, "refused");
    if (target.url.protocol !== "https:" && !options.allowInsecure)
      return failure("refused url: not https", "refused");
    if (signal.aborted) return failure("aborted");

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error("attempt deadline")), attemptTimeoutMs);
    try {
      const response = await gated(agent, delivery.mayWrite).request({
        origin: target.url.origin,
        path: `${target.url.pathname}${target.url.search}`,
        method: "POST",
        headers: withUserAgent(delivery.headers),
        body: delivery.body,
        signal: AbortSignal.any([signal, deadline.signal]),
      });
      statusCode = response.statusCode;
      responseExcerpt = excerptText(await readAtMost(response.body, maxResponseBytes, excerptBytes));
      if (statusCode >= 200 && statusCode < 300)
        return {
          ok: true,
          statusCode,
          durationMs: elapsed(),
          ...(responseExcerpt ? { responseExcerpt } : {}),
        };
      if (statusCode >= 300 && statusCode < 400) return failure(`redirect not followed (${statusCode})`);
      return failure(`HTTP ${statusCode}`);
    } catch (error) {
      if (signal.aborted) return failure("aborted");
      if (deadline.signal.aborted) return failure("timeout", "timeout");
      return failure(describeDeliveryError(error), deliveryFailureKind(error));
    } finally {
      clearTimeout(timer);
    }
  }

  async function attemptInSlot(
    delivery: WebhookDelivery,
    signal: AbortSignal,
  ): Promise<WebhookAttemptOutcome> {
    if (slots === undefined) return attempt(delivery, signal);
    const release = await slots.acquire(signal);
    if (release === undefined) return { ok: false, statusCode: null, error: "aborted", durationMs: 0 };
    try {
      return await attempt(delivery, signal);
    } finally {
      release();
    }
  }

  return {
    // The port promises an outcome, never a rejection: anything unforeseen is still just a failed attempt.
    send: (delivery, signal) =>
      attemptInSlot(delivery, signal).catch((error: unknown) => ({
        ok: false,
        statusCode: null,
        error: describeDeliveryError(error),
        durationMs: 0,
      })),
    close: () => agent.close(),
  };
}

/**
 * Reads up to `limit` bytes and drops the rest: leaving the loop early
 * destroys the body, which makes undici close the connection instead of
 * reading a body of any size to reuse it. Returns the first `keep` bytes.
 */
async function readAtMost(body: AsyncIterable<Uint8Array>, limit: number, keep: number): Promise<Uint8Array> {
  const kept = new Uint8Array(keep);
  let keptLength = 0;
  let received = 0;
  for await (const chunk of body) {
    if (keptLength < keep) {
      const part = chunk.subarray(0, keep - keptLength);
      kept.set(part, keptLength);
      keptLength += part.byteLength;
    }
    received += chunk.byteLength;
    if (received >= limit) break;
  }
  return kept.subarray(0, keptLength);
}

// C0 and C1 controls and DEL, except tab, line feed and carriage return.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const controlCharacters = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/**
 * The kept bytes as text: UTF-8 decoded leniently (invalid bytes become U+FFFD,
 * a character cut at the end is dropped), control characters removed.
 * Undefined when nothing printable is left.
 */
export function excerptText(bytes: Uint8Array): string | undefined {
  const text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false })
    .decode(bytes, { stream: true })
    .replace(controlCharacters, "");
  return text.trim() === "" ? undefined : text;
}

function withUserAgent(headers: Record<string, string>): Record<string, string> {
  const hasUserAgent = Object.keys(headers).some((name) => name.toLowerCase() === "user-agent");
  return hasUserAgent ? headers : { ...headers, "user-agent": userAgent };
}

/**
 * `agent`, with each request aborted at the moment it would be written when
 * `mayWrite` says no: the last check before anything leaves, after the wait
 * for one of the origin's connections (the abort of the attempt's signal
 * covers every wait; a timer can fire late, this reads the clock).
 */
function gated(agent: Agent, mayWrite: (() => boolean) | undefined): Dispatcher {
  if (!mayWrite) return agent;
  return agent.compose(
    (dispatch) => (options, handler) => dispatch(options, new WriteGate(handler, mayWrite)),
  );
}

/** Delegates everything to the request's own handler, except a start that may not write. */
class WriteGate extends DecoratorHandler {
  readonly #handler: Dispatcher.DispatchHandler;
  readonly #mayWrite: () => boolean;

  constructor(handler: Dispatcher.DispatchHandler, mayWrite: () => boolean) {
    super(handler);
    this.#handler = handler;
    this.#mayWrite = mayWrite;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    if (!this.#mayWrite()) {
      controller.abort(new Error("not written: the claim ran out"));
      return;
    }
    this.#handler.onRequestStart?.(controller, context);
  }
}
