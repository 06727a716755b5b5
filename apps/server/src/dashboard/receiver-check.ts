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

/**
 * A refusal (nothing sent), or the report. During a rotation, `overlapEndsAt` is the service time
 * at which the older secret stops signing.
 */
export type ReceiverCheckOutcome =
  | { refused: string }
  | { report: WebhookReceiverReport; overlapEndsAt?: number };

export interface ReceiverChecker {
  /**
   * Checks `url` signed as the service signs now (every live secret of the account), every payload
   * carrying `taskId` when given (the caller has checked that the task is the account's).
   */
  check(accountId: string, url: string, taskId?: string): Promise<ReceiverCheckOutcome>;
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
    async check(accountId, url, taskId) {
      const verdict = await options.validateCallbackUrl(url);
      if (!verdict.ok) return { refused: verdict.reason };
      const signing = await options.admin.signingSecrets(accountId);
      if (signing.length === 0) return { refused: "This account has no live signing secret to sign with." };
      const report = await checkWebhookReceiver(url, {
        secret: signing.map((entry) => entry.secret),
        fetch: throughSender(options.sender),
        ...(taskId ? { taskId } : {}),
      });
      options.logger.info({ accountId, counts: report.counts }, "dashboard checked a webhook receiver");
      const overlapEnds = signing
        .slice(1)
        .flatMap((entry) => (entry.expiresAt === null ? [] : [entry.expiresAt]));
      return overlapEnds.length > 0 ? { report, overlapEndsAt: Math.min(...overlapEnds) } : { report };
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
