import { GenVideoError, hasMarker, markError } from "./errors.js";

const marker = Symbol.for("genvideo.error.WebhookVerificationError");

/**
 * Why a webhook was rejected.
 *
 * @example
 * ```ts
 * const status = (reason: WebhookVerificationReason) => (reason === "bad_payload" ? 422 : 400);
 * ```
 */
export type WebhookVerificationReason =
  /** A `webhook-id`, `webhook-timestamp` or `webhook-signature` header is absent. */
  | "missing_header"
  /** `webhook-timestamp` is not whole Unix seconds. */
  | "bad_header"
  /** No signature matches any secret: forged, altered, or re-serialised on the way. */
  | "bad_signature"
  /** Signed longer ago than `tolerance`: a replay or a badly delayed delivery. */
  | "too_old"
  /** Signed further in the future than `tolerance`: a clock skew or a forged timestamp. */
  | "too_new"
  /** Authentic, but the body is not a webhook payload of this API. */
  | "bad_payload"
  /** Authentic, but about another task than `expectedTaskId`. */
  | "unexpected_task";

/**
 * A webhook failed verification; answer it with 400 and do not act on it. `reason` says why;
 * `hint`, when set, suggests the likely mistake on the receiving side.
 *
 * @example
 * ```ts
 * import { WebhookVerificationError } from "@genvideo/sdk";
 *
 * try {
 *   payload = await verifyWebhook(body, headers, secret);
 * } catch (error) {
 *   if (WebhookVerificationError.isInstance(error)) return new Response(error.reason, { status: 400 });
 *   throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends GenVideoError {
  override name: string = "WebhookVerificationError";
  /** Why the webhook was rejected. */
  readonly reason: WebhookVerificationReason;
  /** The likely mistake on the receiving side, when one is recognisable. */
  readonly hint: string | undefined;

  constructor(reason: WebhookVerificationReason, message: string, hint?: string) {
    super(hint ? `${message} (${hint})` : message);
    this.reason = reason;
    this.hint = hint;
    markError(this, marker);
  }

  /** Whether `error` is a `WebhookVerificationError`, across realms. */
  static override isInstance(error: unknown): error is WebhookVerificationError {
    return hasMarker(error, marker);
  }
}
