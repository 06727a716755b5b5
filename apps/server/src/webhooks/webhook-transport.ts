/**
 * The one factory the server needs: the sender for the engine's dispatcher
 * and the creation-time URL check, built from the same flag and resolver so
 * the two can never disagree about what a valid callback target is.
 */
import type { CallbackUrlCheck } from "@genvideo/engine";
import { createCallbackUrlValidator } from "./callback-url.js";
import { resolveWithSystemDns } from "./host-resolver.js";
import {
  type ClosableWebhookSender,
  createWebhookSender,
  type WebhookSenderOptions,
} from "./webhook-sender.js";

export interface WebhookTransportOptions extends WebhookSenderOptions {
  /** How long task creation waits for DNS before refusing a callback URL (default 5 s). */
  resolveTimeoutMs?: number;
}

export interface WebhookTransport {
  /** `EngineOptions.sender`: one attempt per call, never rejects. */
  sender: ClosableWebhookSender;
  /** `EngineConfig.validateCallbackUrl`: its `reason` is the INVALID_CALLBACK_URL message. */
  validateCallbackUrl: (url: string) => Promise<CallbackUrlCheck>;
}

/**
 * @example
 * const webhooks = createWebhookTransport({ allowInsecure: env.GENVIDEO_ALLOW_INSECURE_CALLBACKS === "1" });
 * const engine = createEngine({ sender: webhooks.sender, config: { validateCallbackUrl: webhooks.validateCallbackUrl } });
 * // on shutdown, after the engine has drained:
 * await webhooks.sender.close();
 */
export function createWebhookTransport(options: WebhookTransportOptions): WebhookTransport {
  const resolve = options.resolve ?? resolveWithSystemDns;
  return {
    sender: createWebhookSender({ ...options, resolve }),
    validateCallbackUrl: createCallbackUrlValidator({
      allowInsecure: options.allowInsecure,
      resolve,
      resolveTimeoutMs: options.resolveTimeoutMs,
    }),
  };
}
