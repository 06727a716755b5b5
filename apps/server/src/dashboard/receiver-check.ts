/**
 * The webhooks page's "Check this endpoint": the SDK's receiver check, sent under the callback URL
 * rules exactly as task callbacks are (docs/webhooks.md#which-callback-urls-are-accepted). The URL
 * is validated as at task creation, before anything is sent, and every delivery then goes through
 * the webhook sender, which checks the address it connects to again (DNS rebinding) and follows no
 * redirect. Unlike the command line, a loopback or private receiver is refused here unless the
 * server runs with GENVIDEO_ALLOW_INSECURE_CALLBACKS=1: the server, not the user's machine, connects.
 */
import type { CallbackUrlCheck, Engine, WebhookSender } from "@genvideo/engine";
import { checkWebhookReceiver, type WebhookReceiverReport } from "@genvideo/sdk/receiver-check";
import type { Logger } from "../logging/logger.js";

export type ReceiverCheckOutcome = { refused: string } | { report: WebhookReceiverReport };

export interface ReceiverChecker {
  /** Checks `url` with the account's current signing secret. */
  check(accountId: string, url: string): Promise<ReceiverCheckOutcome>;
}

export interface ReceiverCheckerOptions {
  sender: WebhookSender;
  /** The task-creation check of a callback URL (the engine's `validateCallbackUrl`). */
  validateCallbackUrl: (url: string) => Promise<CallbackUrlCheck>;
  admin: Engine["admin"];
  logger: Logger;
}

export function createReceiverChecker(options: ReceiverCheckerOptions): ReceiverChecker {
  return {
    async check(accountId, url) {
      const verdict = await options.validateCallbackUrl(url);
      if (!verdict.ok) return { refused: verdict.reason };
      const secret = await options.admin.currentWebhookSecret(accountId);
      if (!secret) return { refused: "This account has no live signing secret to sign with." };
      const report = await checkWebhookReceiver(url, { secret, fetch: throughSender(options.sender) });
      options.logger.info({ accountId, counts: report.counts }, "dashboard checked a webhook receiver");
      return { report };
    },
  };
}

/** Statuses whose Response may carry no body. */
const bodiless = new Set([204, 205, 304]);

/** A `fetch` for the check that sends each request as one webhook attempt of the server's sender. */
function throughSender(sender: WebhookSender): (request: Request) => Promise<Response> {
  return async (request) => {
    const outcome = await sender.send(
      { url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() },
      request.signal,
    );
    // The sender's reason ("refused address 10.0.0.5 (private)", "ECONNREFUSED") is the check's answer.
    if (outcome.statusCode === null) throw new Error(outcome.ok ? "no status" : outcome.error);
    const body = bodiless.has(outcome.statusCode) ? null : (outcome.responseExcerpt ?? null);
    return new Response(body, { status: outcome.statusCode });
  };
}
