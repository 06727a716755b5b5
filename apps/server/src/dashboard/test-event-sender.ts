/**
 * The webhooks page's test event: a signed completed-task payload sent once
 * to a URL the account names, under the same callback rules as a task's
 * webhook (the sender applies them), and kept in the delivery log as a test.
 */
import type { Store, WebhookSender } from "@genvideo/engine";
import { liveWebhookSecrets } from "@genvideo/engine/rules";
import { signWebhook, webhookBody } from "@genvideo/schema";
import type { Logger } from "../logging/logger.js";
import type { DashboardQueries } from "../store/dashboard-queries.js";
import type { TestEventOutcome } from "./webhooks-pages.js";

/** Longer than an attempt's own limit (30 s), so the sender's timeout speaks first. */
const TEST_EVENT_TIMEOUT_MS = 35_000;
/** The task id of every test event: all zeros, which no real task ever has. */
export const TEST_EVENT_TASK_ID = "00000000-0000-4000-8000-000000000000";

export interface TestEventSender {
  /** Signs with the account's live secrets, sends once, records the attempt. */
  send(accountId: string, url: URL): Promise<TestEventOutcome>;
}

export interface TestEventSenderOptions {
  store: Store;
  sender: WebhookSender;
  queries: DashboardQueries;
  publicUrl: string;
  serviceNow: () => number;
  wallNow: () => number;
  logger: Logger;
}

export function createTestEventSender(options: TestEventSenderOptions): TestEventSender {
  const liveSecrets = async (accountId: string) => {
    const secrets = await options.store.transaction((tx) => tx.listWebhookSecrets(accountId));
    return liveWebhookSecrets(secrets, options.serviceNow()).map((s) => s.secret);
  };

  return {
    async send(accountId, url) {
      // A completed task's payload, valid for receivers that parse it (the SDK's verifyWebhook does).
      const body = webhookBody({
        success: true,
        message: "Test event from the genvideo dashboard",
        task_id: TEST_EVENT_TASK_ID,
        video_url: new URL(`/videos/${TEST_EVENT_TASK_ID}.mp4`, options.publicUrl).href,
      });
      const id = `msg_test_${crypto.randomUUID().replaceAll("-", "")}`;
      const headers = await signWebhook({
        payload: body,
        secret: await liveSecrets(accountId),
        id,
        timestamp: options.wallNow(),
      });
      const startedAt = options.serviceNow();
      const outcome = await options.sender.send(
        { url: url.href, headers: { ...headers }, body },
        AbortSignal.timeout(TEST_EVENT_TIMEOUT_MS),
      );
      await options.queries.insertTestEvent({
        id,
        accountId,
        url: url.href,
        payload: body,
        createdAt: startedAt,
        durationMs: outcome.durationMs,
        statusCode: outcome.statusCode,
        error: outcome.ok ? null : outcome.error,
        responseExcerpt: outcome.responseExcerpt ?? null,
        requestHeaders: { ...headers },
      });
      options.logger.info({ accountId, eventId: id }, "dashboard sent a test event");
      return {
        url: url.href,
        ok: outcome.ok,
        statusCode: outcome.statusCode,
        durationMs: outcome.durationMs,
        ...(outcome.ok ? {} : { error: outcome.error }),
      };
    },
  };
}
